package dev.warden.internal.wire;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Asks a server what it answers to a connect's credentials, when Lettuce lost that answer. When Redis refuses a
 * handshake ({@code WRONGPASS}), Lettuce closes the channel and fails the connect once the close completes; on a
 * loaded machine the channel's end can fail it first ("Connection closed prematurely", or "RedisHandshakeHandler not
 * registered" when the close came before Lettuce looked at its pipeline), which would report a wrong password as a
 * network failure. Seen here in about 1 of 100 connects with a spinning thread per core, often several in a row, so
 * a retry does not help; this probe is one blocking {@code AUTH} (or {@code PING}) on its own socket, with no race.
 * Plain TCP to one server or to the sentinels only: not over TLS, a Unix socket or a cluster, whose failures keep
 * Lettuce's words.
 */
final class HandshakeProbe {
    private HandshakeProbe() {
    }

    /**
     * Whether a connect failed because its channel ended in the handshake, without an answer of the server.
     *
     * @param failure what the connect threw
     * @return true for Lettuce's two reports of a handshake cut short, with no server's answer among the causes
     */
    static boolean cut(Throwable failure) {
        return cut(failure, 0) == Boolean.TRUE;
    }

    /**
     * Over the causes and what each suppressed (Lettuce puts each sentinel's failure there): TRUE for a cut
     * handshake, FALSE for a server's answer (which ends the search), null for neither.
     */
    private static Boolean cut(Throwable failure, int depth) {
        Boolean found = null;
        for (Throwable e = failure; e != null && depth < 16; e = e.getCause(), depth++) {
            if (e instanceof RedisCommandExecutionException) {
                return Boolean.FALSE;
            }
            String message = String.valueOf(e.getMessage());
            if (e instanceof RedisConnectionException && message.equals("Connection closed prematurely")
                    || e instanceof IllegalStateException && message.equals("RedisHandshakeHandler not registered")) {
                found = Boolean.TRUE;
            }
            for (Throwable suppressed : e.getSuppressed()) {
                Boolean inner = cut(suppressed, depth + 1);
                if (inner == Boolean.FALSE) {
                    return Boolean.FALSE;
                }
                found = inner == Boolean.TRUE ? Boolean.TRUE : found;
            }
        }
        return found;
    }

    /**
     * Sends what a connect's handshake first depends on over a socket of its own, {@code AUTH} with the URI's
     * credentials or, without any, {@code PING}, and returns the server's error reply.
     *
     * @param uri     a plain {@code redis://} URI of one server (or one sentinel)
     * @param timeout for connecting and for the reply
     * @return the error the server answered (such as {@code "WRONGPASS invalid username-password pair..."} or
     *         {@code "NOAUTH Authentication required."}); empty if it answered without one, the URI is not plain
     *         TCP, or the probe itself failed
     */
    static Optional<String> refusal(RedisURI uri, Duration timeout) {
        if (uri.isSsl() || uri.getSocket() != null || uri.getHost() == null || uri.getCredentialsProvider() == null) {
            return Optional.empty();
        }
        RedisCredentials credentials = uri.getCredentialsProvider().resolveCredentials().block(timeout);
        List<byte[]> command = new ArrayList<>();
        byte[] password = new byte[0];
        if (credentials == null || !credentials.hasPassword()) {
            command.add(bytes("PING"));
        } else {
            command.add(bytes("AUTH"));
            if (credentials.hasUsername()) {
                command.add(bytes(credentials.getUsername()));
            }
            ByteBuffer encoded = StandardCharsets.UTF_8.encode(CharBuffer.wrap(credentials.getPassword()));
            password = Arrays.copyOf(encoded.array(), encoded.limit());
            Arrays.fill(encoded.array(), (byte) 0);
            command.add(password);
        }
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), millis);
            socket.setSoTimeout(millis);
            OutputStream out = socket.getOutputStream();
            out.write(resp(command));
            out.flush();
            String reply = line(socket.getInputStream());
            return reply.startsWith("-") ? Optional.of(reply.substring(1)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } finally {
            Arrays.fill(password, (byte) 0);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A command as a RESP array of bulk strings. */
    private static byte[] resp(List<byte[]> words) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(bytes("*" + words.size() + "\r\n"));
        for (byte[] word : words) {
            out.write(bytes("$" + word.length + "\r\n"));
            out.write(word);
            out.write(bytes("\r\n"));
        }
        return out.toByteArray();
    }

    /** The first line of a reply, without its CRLF (at most 1,024 bytes). */
    private static String line(InputStream in) throws IOException {
        ByteBuffer line = ByteBuffer.allocate(1024);
        int b;
        while ((b = in.read()) != -1 && b != '\n' && line.hasRemaining()) {
            line.put((byte) b);
        }
        String text = new String(line.array(), 0, line.position(), StandardCharsets.UTF_8);
        return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
    }
}
