package dev.warden.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the requests clients send to Redis with MONITOR, leaving out the commands scripts run inside the server
 * (MONITOR shows them as {@code [0 lua]}) and {@code INFO}, which only the bench sends ({@link ServerCost}). Used
 * only in untimed counting phases: MONITOR slows the server.
 */
final class RequestCounter implements AutoCloseable {
    private static final String END = "bench-count-end";
    private final Socket socket;
    private final AtomicLong requests = new AtomicLong();
    private final java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(1);
    private final Thread reader;

    RequestCounter(String host, int port) throws IOException {
        socket = new Socket(host, port);
        socket.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        BufferedReader lines = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                StandardCharsets.UTF_8));
        if (!"+OK".equals(lines.readLine())) {
            throw new IOException("MONITOR refused");
        }
        reader = new Thread(() -> {
            try {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.contains(END)) {
                        ended.countDown();
                    } else if (ended.getCount() > 0 && !line.contains(" lua]") && !line.contains("] \"INFO\"")) {
                        requests.incrementAndGet();
                    }
                }
            } catch (IOException e) {
                // The socket is closed by close(): counting is over.
            }
        }, "bench-monitor");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Ends counting: sends a marker through the server and waits until MONITOR has shown it, so every request
     * before it is counted and none after.
     *
     * @param server sends one command to the server over another connection
     * @return the requests counted
     */
    long finish(java.util.function.Consumer<String[]> server) throws InterruptedException {
        server.accept(new String[] {"ECHO", END});
        if (!ended.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new IllegalStateException("MONITOR did not show the end marker");
        }
        return requests.get();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
