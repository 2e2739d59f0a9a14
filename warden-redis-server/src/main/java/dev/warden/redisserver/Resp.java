package dev.warden.redisserver;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal blocking RESP2 connection for administering test servers (PING, CLIENT KILL, SCRIPT FLUSH, DEBUG SLEEP,
 * INFO, replication and cluster commands) without depending on the client library under test.
 *
 * <p>Replies are decoded as: simple and bulk strings to {@link String}, integers to {@link Long}, arrays to
 * {@link List}, a null bulk or array to {@code null}; an error reply throws {@link RespError}. Not thread-safe.
 */
public final class Resp implements Closeable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /**
     * Connects to a Redis server.
     *
     * @param host    the server's address
     * @param port    the server's port
     * @param timeout connect and read timeout
     * @throws IOException if the connection cannot be made
     */
    public Resp(String host, int port, Duration timeout) throws IOException {
        this(host, port, timeout, null);
    }

    /**
     * Connects to a Redis server, over TLS if {@code tls} is given.
     *
     * @param host    the server's address
     * @param port    the server's port
     * @param timeout connect, handshake and read timeout
     * @param tls     the factory of TLS sockets that trusts the server's certificate, or null for a plain connection
     * @throws IOException if the connection or the TLS handshake fails
     */
    public Resp(String host, int port, Duration timeout, javax.net.ssl.SSLSocketFactory tls) throws IOException {
        Socket plain = new Socket();
        Socket connected = plain;
        try {
            plain.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
            plain.setSoTimeout((int) timeout.toMillis());
            plain.setTcpNoDelay(true);
            if (tls != null) {
                javax.net.ssl.SSLSocket secure = (javax.net.ssl.SSLSocket) tls.createSocket(plain, host, port, true);
                connected = secure;
                secure.startHandshake();
            }
            in = new BufferedInputStream(connected.getInputStream());
            out = connected.getOutputStream();
        } catch (IOException e) {
            connected.close();
            throw e;
        }
        socket = connected;
    }

    /**
     * Sends one command and reads its reply.
     *
     * @param args the command and its arguments
     * @return the decoded reply
     * @throws IOException if the connection fails or times out
     * @throws RespError   if the server answers with an error
     */
    public Object call(String... args) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        buf.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            buf.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            buf.writeBytes(bytes);
            buf.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.write(buf.toByteArray());
        out.flush();
        return read();
    }

    /**
     * Reads the next reply without sending a command: a message pushed to a subscriber, say.
     *
     * @return the decoded reply
     * @throws IOException if the connection fails or times out
     * @throws RespError   if the server answers with an error
     */
    public Object read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new IOException("connection closed by the server");
        }
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new RespError(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(len + 2);
                if (data.length != len + 2) {
                    throw new IOException("connection closed in a bulk reply");
                }
                return new String(data, 0, len, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    try {
                        items.add(read());
                    } catch (RespError e) {
                        items.add(e);
                    }
                }
                return items;
            }
            default:
                throw new IOException("unexpected reply type: " + (char) type);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("connection closed in a reply line");
            }
            buf.write(c);
        }
        if (in.read() != '\n') {
            throw new IOException("malformed reply line");
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** An error reply from the server, such as {@code ERR unknown command}. */
    public static final class RespError extends IOException {
        private static final long serialVersionUID = 1L;

        RespError(String message) {
            super(message);
        }
    }
}
