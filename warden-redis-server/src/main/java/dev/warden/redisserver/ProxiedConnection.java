package dev.warden.redisserver;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One client's connection through a {@link RedisProxy}: the client's socket, the proxy's socket to the server, and
 * four daemon threads named {@code redis-proxy-<port>-<id>-requests|replies-in|out}. A reader per direction reads
 * (requests as they come, replies a whole RESP frame at a time, for the proxy's rewrites) and hands over to a
 * {@link ProxyPipe}, which writes. Closed when either side closes both of its directions or fails, by
 * {@link #reset()}, or by the proxy's close.
 */
final class ProxiedConnection implements RedisProxy.Connection {
    /** Sent by SUBSCRIBE, SSUBSCRIBE and PSUBSCRIBE alike: the command's name ends a RESP bulk string. */
    private static final String SUBSCRIBE = "SUBSCRIBE\r\n";

    private final RedisProxy proxy;
    private final int id;
    private final Socket client;
    private final Socket server;
    private final String name;
    private final ProxyPipe requests;
    private final ProxyPipe replies;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Directions whose sender closed and whose pipe wrote all before it: at 2 the connection is over. */
    private final AtomicInteger ended = new AtomicInteger();
    private volatile boolean subscriber;
    /** The end of the requests read so far, so that a command name split across two reads is still seen. */
    private String tail = "";

    ProxiedConnection(RedisProxy proxy, int id, Socket client, Socket server) throws IOException {
        this.proxy = proxy;
        this.id = id;
        this.client = client;
        this.server = server;
        this.name = "redis-proxy-" + proxy.port() + "-" + id;
        this.requests = new ProxyPipe(name + "-requests-out", this, server.getOutputStream(),
                () -> ended(server), proxy::requestDelayNanos);
        this.replies = new ProxyPipe(name + "-replies-out", this, client.getOutputStream(),
                () -> ended(client), proxy::replyDelayNanos);
    }

    void start() {
        requests.start();
        replies.start();
        read("requests-in", this::readRequests);
        read("replies-in", this::readReplies);
    }

    @Override
    public int id() {
        return id;
    }

    @Override
    public boolean subscriber() {
        return subscriber;
    }

    @Override
    public String toString() {
        return "connection " + id + (subscriber ? " (pub/sub)" : "") + " on port " + client.getLocalPort();
    }

    /** Blocks a pipe's writer while the proxy holds this connection's bytes back. */
    void awaitPassage() throws InterruptedException {
        proxy.awaitPassage(this);
    }

    /** Closes both sides with a TCP reset (RST) instead of an orderly close, as a failed peer or middlebox does. */
    void reset() {
        close(true);
    }

    /** Closes both sides; the pipes drop what they still hold. Does nothing if closed already. */
    void close() {
        close(false);
    }

    private void close(boolean reset) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        requests.stop();
        replies.stop();
        proxy.closed(this);
        IOException failure = null;
        for (Socket socket : List.of(client, server)) {
            try {
                if (reset) {
                    socket.setSoLinger(true, 0);
                }
                socket.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw new UncheckedIOException(name + ": cannot " + (reset ? "reset" : "close") + " a socket", failure);
        }
    }

    private interface Reader {
        void run() throws IOException, InterruptedException;
    }

    private void read(String what, Reader reader) {
        Thread thread = new Thread(() -> {
            try {
                reader.run();
            } catch (IOException e) {
                // This side closed abruptly, or the connection was closed under the reader: close the other side.
                close();
            } catch (InterruptedException e) {
                // Interrupted only while the connection closes.
                Thread.currentThread().interrupt();
                close();
            }
        }, name + "-" + what);
        thread.setDaemon(true);
        thread.start();
    }

    private void readRequests() throws IOException, InterruptedException {
        InputStream in = client.getInputStream();
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) >= 0) {
            byte[] chunk = Arrays.copyOf(buffer, n);
            if (!subscriber) {
                noteSubscribe(chunk);
            }
            requests.send(chunk);
        }
        requests.end();
    }

    /** Marks the connection a subscriber when a subscribe command passes; before it is queued, so it is held too. */
    private void noteSubscribe(byte[] chunk) {
        String text = (tail + new String(chunk, StandardCharsets.ISO_8859_1)).toUpperCase(Locale.ROOT);
        if (text.contains(SUBSCRIBE)) {
            subscriber = true;
        }
        tail = text.substring(Math.max(0, text.length() - SUBSCRIBE.length()));
    }

    private void readReplies() throws IOException, InterruptedException {
        InputStream in = new BufferedInputStream(server.getInputStream());
        while (true) {
            ByteArrayOutputStream frame = new ByteArrayOutputStream();
            try {
                RedisProxy.readFrame(in, frame);
            } catch (EOFException e) {
                replies.end();
                return;
            }
            replies.send(proxy.reply(frame.toByteArray()));
        }
    }

    /** A sender closed its side and all it sent was written: close the destination's side, the whole when both. */
    private void ended(Socket destination) throws IOException {
        destination.shutdownOutput();
        if (ended.incrementAndGet() == 2) {
            close();
        }
    }
}
