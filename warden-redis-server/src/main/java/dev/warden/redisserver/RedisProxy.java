package dev.warden.redisserver;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * A TCP proxy on a free port of 127.0.0.1 in front of one server, for faults between a client and Redis, all under
 * the test's control: it can replace one of the server's replies with another, as a server of another version or a
 * broken network might; add latency to either direction ({@link #latency}); stop delivering bytes on some
 * connections without closing them, a half-open partition ({@link #blackhole}), until {@link #heal}; and reset
 * connections ({@link #reset}).
 *
 * <p>Requests pass through unchanged. Replies are read whole (RESP2 and RESP3 frames, nested aggregates included),
 * so that a replacement takes the place of exactly one reply. Each connection has four daemon threads, named
 * {@code redis-proxy-<port>-<id>-...}, and holds back at most a few MiB per direction: beyond that, TCP's flow
 * control stops the sender. Thread-safe. {@link #close()} closes every connection.
 */
public final class RedisProxy implements AutoCloseable {
    private static final String HOST = "127.0.0.1";
    private static final Predicate<Connection> NONE = connection -> false;

    /** A connection through the proxy, as the predicates of {@link #blackhole} and {@link #reset} see it. */
    public interface Connection {
        /** @return its number: 0 for the first connection the proxy accepted, then 1, 2 and so on */
        int id();

        /** @return whether its client has sent SUBSCRIBE, SSUBSCRIBE or PSUBSCRIBE: a pub/sub connection */
        boolean subscriber();
    }

    private final int targetPort;
    private final ServerSocket listener;
    /** Open connections, in the order they were accepted. Guarded by this. */
    private final Set<ProxiedConnection> open = new LinkedHashSet<>();
    /** Guarded by this. */
    private int accepted;
    /** The replacement armed by {@link #replaceNextIntegerReply}, or null. Guarded by this. */
    private Replacement armed;
    /** Guarded by this. */
    private boolean closed;
    /** A text that every string reply has replaced ({@link #rewriteStrings}), or null. */
    private volatile Rewrite rewrite;
    private volatile long requestDelayNanos;
    private volatile long replyDelayNanos;
    /** Which connections are held back; waited on by their pipes. Guarded by {@link #gate}. */
    private Predicate<Connection> blackholed = NONE;
    private final Object gate = new Object();

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
            throw new UncheckedIOException("cannot open a proxy port for target port " + targetPort, e);
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

    /**
     * From now on, delays every byte that reaches the proxy by a fixed time per direction, on every connection; bytes
     * stay in order, so a byte that comes after a delayed one waits for it. Zero for none.
     *
     * @param requests the delay from client to server
     * @param replies  the delay from server to client
     * @throws IllegalArgumentException if either is negative
     */
    public void latency(Duration requests, Duration replies) {
        requestDelayNanos = nonNegative(requests, "requests");
        replyDelayNanos = nonNegative(replies, "replies");
    }

    private static long nonNegative(Duration delay, String what) {
        Objects.requireNonNull(delay, what);
        if (delay.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative: " + delay);
        }
        return delay.toNanos();
    }

    long requestDelayNanos() {
        return requestDelayNanos;
    }

    long replyDelayNanos() {
        return replyDelayNanos;
    }

    /**
     * Holds back every byte, both ways, of the connections that {@code which} selects, without closing them: a
     * half-open partition. TCP's flow control then stops the senders; neither side learns of it but by its own
     * timeouts. The predicate is asked again before every write, so it also selects connections opened later and
     * connections that come to match (one that subscribes later, say). Replaces an earlier blackhole.
     *
     * @param which selects the connections to hold back
     * @return how many open connections it selects now
     */
    public int blackhole(Predicate<Connection> which) {
        Objects.requireNonNull(which, "which");
        synchronized (gate) {
            blackholed = which;
            gate.notifyAll();
        }
        return open().stream().filter(which).mapToInt(c -> 1).sum();
    }

    /**
     * Holds back every byte of every connection, opened now or later: a partition of this proxy's clients.
     *
     * @return how many connections were open
     */
    public int blackhole() {
        return blackhole(connection -> true);
    }

    /** Ends the blackhole: what was held back is delivered, in order, as after a partition that healed. */
    public void heal() {
        synchronized (gate) {
            blackholed = NONE;
            gate.notifyAll();
        }
    }

    /**
     * Closes the open connections that {@code which} selects with a TCP reset (RST), on both sides, dropping what
     * they held back: as when a peer or a middlebox gives up on a connection.
     *
     * @param which selects the connections to reset
     * @return how many connections were reset
     */
    public int reset(Predicate<Connection> which) {
        Objects.requireNonNull(which, "which");
        List<ProxiedConnection> chosen = open().stream().filter(which).toList();
        chosen.forEach(ProxiedConnection::reset);
        return chosen.size();
    }

    /**
     * Resets every open connection (see {@link #reset(Predicate)}).
     *
     * @return how many connections were reset
     */
    public int reset() {
        return reset(connection -> true);
    }

    /** @return the open connections, in the order they were accepted */
    public synchronized List<Connection> connections() {
        return List.copyOf(open);
    }

    private synchronized List<ProxiedConnection> open() {
        return List.copyOf(open);
    }

    /** Waits while {@link #blackhole} holds the connection's bytes back. */
    void awaitPassage(ProxiedConnection connection) throws InterruptedException {
        synchronized (gate) {
            while (blackholed.test(connection)) {
                gate.wait();
            }
        }
    }

    synchronized void closed(ProxiedConnection connection) {
        open.remove(connection);
    }

    @Override
    public void close() {
        List<ProxiedConnection> all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            all = List.copyOf(open);
        }
        try {
            listener.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the proxy's port " + port(), e);
        } finally {
            all.forEach(ProxiedConnection::close);
        }
    }

    private void accept() {
        while (true) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                // The listener was closed: the proxy is closing.
                return;
            }
            Socket server;
            try {
                server = new Socket(HOST, targetPort);
            } catch (IOException e) {
                // The server is down: the client is refused, as it would be without the proxy.
                refuse(client);
                continue;
            }
            ProxiedConnection connection;
            synchronized (this) {
                if (closed) {
                    refuse(client);
                    refuse(server);
                    return;
                }
                try {
                    client.setTcpNoDelay(true);
                    server.setTcpNoDelay(true);
                    connection = new ProxiedConnection(this, accepted++, client, server);
                } catch (IOException e) {
                    // A side closed already: so does the other.
                    refuse(client);
                    refuse(server);
                    continue;
                }
                open.add(connection);
            }
            connection.start();
        }
    }

    /** Closes a socket with a reset. */
    private static void refuse(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
            socket.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reset the socket on port " + socket.getLocalPort(), e);
        }
    }

    /** Replaces or rewrites one reply as armed ({@link #replaceNextIntegerReply}, {@link #rewriteStrings}). */
    byte[] reply(byte[] frame) {
        byte[] reply = rewritten(frame);
        Replacement replacement = null;
        if (reply[0] == ':') {
            synchronized (this) {
                replacement = armed;
                armed = null;
            }
        }
        if (replacement == null) {
            return reply;
        }
        replacement.replaced().complete(new String(reply, StandardCharsets.UTF_8).trim());
        return replacement.reply();
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
    static void readFrame(InputStream in, ByteArrayOutputStream frame) throws IOException {
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
