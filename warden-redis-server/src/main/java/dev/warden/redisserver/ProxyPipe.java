package dev.warden.redisserver;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One direction of a {@link ProxiedConnection}: what its reader read waits here, each chunk with the time it is
 * due ({@link RedisProxy#latency}), and one daemon thread writes the chunks in order once they are due and the
 * connection is not {@link RedisProxy#blackhole blackholed}. The queue is bounded: while it is full the reader
 * blocks, stops reading its socket, and TCP's flow control holds the sender back, as on a stalled network.
 */
final class ProxyPipe {
    /** Chunks of at most 8 KiB each: at most 2 MiB held back per direction. */
    private static final int CAPACITY = 256;

    private record Chunk(byte[] data, long due) {
    }

    /** The sender finished (EOF): half-close the destination once what came before is written. */
    private static final Chunk END = new Chunk(new byte[0], 0);

    private final BlockingQueue<Chunk> queue = new ArrayBlockingQueue<>(CAPACITY);
    private final ProxiedConnection connection;
    private final LongSupplier delay;
    private final Thread writer;

    /**
     * @param name      the writer thread's name
     * @param out       where the chunks go
     * @param halfClose closes the destination's side once the sender closed its own and all is written
     * @param delay     the latency that {@link #send} adds, in nanoseconds, read at each send
     */
    ProxyPipe(String name, ProxiedConnection connection, OutputStream out, HalfClose halfClose, LongSupplier delay) {
        this.connection = connection;
        this.delay = delay;
        this.writer = new Thread(() -> write(out, halfClose), name);
        writer.setDaemon(true);
    }

    /** Closes the destination's sending side (a TCP FIN). */
    interface HalfClose {
        void run() throws IOException;
    }

    void start() {
        writer.start();
    }

    /** Queues a chunk, due after the latency of now; blocks while the queue is full. */
    void send(byte[] data) throws InterruptedException {
        queue.put(new Chunk(data, System.nanoTime() + delay.getAsLong()));
    }

    /** The sender closed its side: the destination's side is closed once everything before is written. */
    void end() throws InterruptedException {
        queue.put(END);
    }

    /** Stops the writer, dropping what is queued: the connection is closed. */
    void stop() {
        writer.interrupt();
    }

    private void write(OutputStream out, HalfClose halfClose) {
        try {
            while (true) {
                Chunk chunk = queue.take();
                if (chunk == END) {
                    halfClose.run();
                    return;
                }
                long wait = chunk.due() - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                connection.awaitPassage();
                out.write(chunk.data());
                out.flush();
            }
        } catch (InterruptedException e) {
            // Interrupted by stop(): the connection is closed already.
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // The destination closed or reset: so does the whole connection, as a TCP proxy's would.
            connection.close();
        }
    }
}
