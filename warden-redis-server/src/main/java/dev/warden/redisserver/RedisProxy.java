package dev.warden.redisserver;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A TCP proxy on a free port of 127.0.0.1 in front of one server, for faults between a client and Redis: it can
 * replace one of the server's replies with another, as a server of another version or a broken network might.
 *
 * <p>Requests pass through unchanged. Replies are read whole (RESP2 and RESP3 frames, nested aggregates included),
 * so that a replacement takes the place of exactly one reply. {@link #close()} closes every connection.
 */
public final class RedisProxy implements AutoCloseable {
    private static final String HOST = "127.0.0.1";

    private final int targetPort;
    private final ServerSocket listener;
    private final List<Socket> sockets = new ArrayList<>();
    /** The replacement armed by {@link #replaceNextIntegerReply}, or null. Guarded by this. */
    private Replacement armed;
    /** Guarded by this. */
    private boolean closed;
    /** A text that every string reply has replaced ({@link #rewriteStrings}), or null. */
    private volatile Rewrite rewrite;

    private record Rewrite(String from, String to) {
    }

    private record Replacement(byte[] reply, CompletableFuture<String> replaced) {
    }

    private RedisProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getByName(HOST));
        Thread acceptor = new Thread(this::accept, "redis-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * Starts a proxy in front of a server on 127.0.0.1.
     *
     * @param targetPort the server's port
     * @return the running proxy
     * @throws UncheckedIOException if no port can be opened
     */
    public static RedisProxy start(int targetPort) {
        try {
            return new RedisProxy(targetPort);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a proxy port", e);
        }
    }

    /** @return the proxy's port */
    public int port() {
        return listener.getLocalPort();
    }

    /** @return {@code redis://127.0.0.1:<port>}, the address clients use instead of the server's */
    public String uri() {
        return "redis://" + HOST + ":" + port();
    }

    /**
     * Replaces the server's next integer reply (RESP {@code :n}) on any connection with a bulk string.
     *
     * @param text the bulk string that replaces it
     * @return completes with the replaced reply's text once a reply was replaced
     */
    public synchronized CompletableFuture<String> replaceNextIntegerReply(String text) {
        byte[] data = text.getBytes(StandardCharsets.UTF_8);
        byte[] reply = ("$" + data.length + "\r\n" + text + "\r\n").getBytes(StandardCharsets.UTF_8);
        armed = new Replacement(reply, new CompletableFuture<>());
        return armed.replaced();
    }

    /**
     * From now on, replaces {@code from} with {@code to} in every string reply (RESP bulk and verbatim strings) on
     * every connection: for example the version in {@code INFO server}, to play a server of another version.
     *
     * @param from the text to replace
     * @param to   what replaces it
     */
    public void rewriteStrings(String from, String to) {
        rewrite = new Rewrite(from, to);
    }

    @Override
    public void close() {
        List<Socket> open;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            open = new ArrayList<>(sockets);
        }
        try {
            listener.close();
        } catch (IOException e) {
            // Closing: nothing else to do.
        }
        for (Socket socket : open) {
            try {
                socket.close();
            } catch (IOException e) {
                // Closing: nothing else to do.
            }
        }
    }

    private void accept() {
        while (true) {
            Socket client;
            Socket server;
            try {
                client = listener.accept();
                server = new Socket(HOST, targetPort);
            } catch (IOException e) {
                return;
            }
            synchronized (this) {
                sockets.add(client);
                sockets.add(server);
                if (closed) {
                    close(client, server);
                    return;
                }
            }
            pump("requests", () -> copy(client.getInputStream(), server.getOutputStream()), client, server);
            pump("replies", () -> replies(server.getInputStream(), client.getOutputStream()), client, server);
        }
    }

    private interface Pump {
        void run() throws IOException;
    }

    private void pump(String what, Pump pump, Socket client, Socket server) {
        Thread thread = new Thread(() -> {
            try {
                pump.run();
            } catch (IOException e) {
                // A side closed: close the other.
            } finally {
                close(client, server);
            }
        }, "redis-proxy-" + port() + "-" + what);
        thread.setDaemon(true);
        thread.start();
    }

    private static void close(Socket client, Socket server) {
        try {
            client.close();
        } catch (IOException e) {
            // Already closed.
        }
        try {
            server.close();
        } catch (IOException e) {
            // Already closed.
        }
    }

    private static void copy(InputStream in, OutputStream out) throws IOException {
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) >= 0) {
            out.write(buffer, 0, n);
            out.flush();
        }
    }

    private void replies(InputStream raw, OutputStream out) throws IOException {
        InputStream in = new BufferedInputStream(raw);
        while (true) {
            ByteArrayOutputStream frame = new ByteArrayOutputStream();
            readFrame(in, frame);
            byte[] reply = rewritten(frame.toByteArray());
            Replacement replacement = null;
            if (reply[0] == ':') {
                synchronized (this) {
                    replacement = armed;
                    armed = null;
                }
            }
            out.write(replacement != null ? replacement.reply() : reply);
            out.flush();
            if (replacement != null) {
                replacement.replaced().complete(new String(reply, StandardCharsets.UTF_8).trim());
            }
        }
    }

    /** A string reply with {@link #rewrite} applied; any other reply as it is. */
    private byte[] rewritten(byte[] reply) {
        Rewrite current = rewrite;
        if (current == null || (reply[0] != '$' && reply[0] != '=')) {
            return reply;
        }
        int header = 0;
        while (reply[header] != '\n') {
            header++;
        }
        if (reply[1] == '-') {
            return reply;
        }
        String body = new String(reply, header + 1, reply.length - header - 3, StandardCharsets.UTF_8);
        if (!body.contains(current.from())) {
            return reply;
        }
        byte[] data = body.replace(current.from(), current.to()).getBytes(StandardCharsets.UTF_8);
        return ((char) reply[0] + Integer.toString(data.length) + "\r\n" + new String(data, StandardCharsets.UTF_8)
                + "\r\n").getBytes(StandardCharsets.UTF_8);
    }

    /** Reads one whole RESP2 or RESP3 frame into {@code frame}. */
    private static void readFrame(InputStream in, ByteArrayOutputStream frame) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException();
        }
        frame.write(type);
        String line = readLine(in, frame);
        switch (type) {
            case '$', '!', '=' -> {
                int length = Integer.parseInt(line);
                if (length >= 0) {
                    frame.write(in.readNBytes(length + 2));
                }
            }
            case '*', '~', '>' -> {
                int count = Integer.parseInt(line);
                for (int i = 0; i < count; i++) {
                    readFrame(in, frame);
                }
            }
            case '%', '|' -> {
                int pairs = Integer.parseInt(line);
                for (int i = 0; i < 2 * pairs; i++) {
                    readFrame(in, frame);
                }
            }
            default -> {
                // A simple type: the line was all of it.
            }
        }
    }

    private static String readLine(InputStream in, ByteArrayOutputStream frame) throws IOException {
        StringBuilder line = new StringBuilder();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException();
            }
            frame.write(b);
            if (previous == '\r' && b == '\n') {
                line.setLength(line.length() - 1);
                return line.toString();
            }
            line.append((char) b);
            previous = b;
        }
    }
}
