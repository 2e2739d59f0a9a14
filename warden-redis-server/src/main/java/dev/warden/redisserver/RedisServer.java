package dev.warden.redisserver;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * One real {@code redis-server} process listening on a free port of 127.0.0.1, with the faults tests need: kill
 * (SIGKILL), pause and resume (SIGSTOP/SIGCONT), and restart on the same port with all data lost.
 *
 * <p>The server keeps no data on disk ({@code save ""}, no AOF), so a restart always starts empty. Create one with
 * {@link #start()} or {@link #builder()}; {@link #close()} stops it and deletes its working directory.
 * Not thread-safe: one test thread controls a server.
 */
public final class RedisServer implements AutoCloseable {
    private static final String HOST = "127.0.0.1";
    private static final String READY = "Ready to accept connections";
    private static final String SENTINEL_READY = "+monitor master";
    private static final int PORT_ATTEMPTS = 5;
    private static final int LOG_LINES = 200;

    private final Path binary;
    private final List<String> extraArgs;
    private final Duration startTimeout;
    private final Path[] tls;
    private final String sentinelConfig;
    private final boolean clusterMode;
    private final Path dir;
    private final Deque<String> log = new ArrayDeque<>();
    /** Lines awaited by {@link #awaitLog}, completed by the output drain; guarded by {@code log}. */
    private final List<Watch> awaited = new ArrayList<>();
    private int port;
    private Process process;
    private javax.net.ssl.SSLSocketFactory adminTls;

    private RedisServer(Builder builder) {
        this.binary = builder.binary != null ? builder.binary : RedisBinary.resolve();
        this.extraArgs = List.copyOf(builder.args);
        this.startTimeout = builder.startTimeout;
        this.tls = builder.tls;
        this.sentinelConfig = builder.sentinelConfig;
        this.clusterMode = builder.cluster;
        this.port = builder.port;
        try {
            this.dir = Files.createTempDirectory("warden-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts a plain server on a free loopback port.
     *
     * @return the running server
     * @throws IllegalStateException if it does not become ready in time
     */
    public static RedisServer start() {
        return builder().start();
    }

    /**
     * Returns a builder for a server with extra arguments (replication, cluster mode, ...).
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the loopback port the server listens on */
    public int port() {
        return port;
    }

    /** @return the loopback host, {@code 127.0.0.1} */
    public String host() {
        return HOST;
    }

    /** @return {@code redis://127.0.0.1:PORT}, or {@code rediss://} for a TLS server */
    public String uri() {
        return (tls != null ? "rediss://" : "redis://") + HOST + ":" + port;
    }

    /** @return the server's working directory */
    public Path dir() {
        return dir;
    }

    /** @return the process id of the running server */
    public long pid() {
        return requireProcess().pid();
    }

    /** @return the major version of the server binary, such as 6 or 7 */
    public int majorVersion() {
        return RedisBinary.majorVersion(binary);
    }

    /** @return whether the process is alive (a paused process is alive) */
    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /**
     * Sends one command over a fresh connection and returns the decoded reply (see {@link Resp}). A TLS server is
     * called over TLS, trusting its certificate authority; one that requires client certificates
     * ({@code --tls-auth-clients yes}) cannot be called.
     *
     * @param args the command and its arguments
     * @return the reply
     * @throws UncheckedIOException if the server cannot be reached or answers with an error
     */
    public Object call(String... args) {
        try (Resp resp = new Resp(HOST, port, Duration.ofSeconds(10), tls != null ? adminTls() : null)) {
            return resp.call(args);
        } catch (IOException e) {
            throw new UncheckedIOException(String.join(" ", args) + " on port " + port + ": " + e.getMessage(), e);
        }
    }

    /** Kills the process with SIGKILL and waits for it to die. Its data is gone. */
    public void kill() {
        Process p = requireProcess();
        p.destroyForcibly();
        awaitExit(p);
    }

    /** Pauses the process with SIGSTOP: connections stay open, nothing is answered. */
    public void pause() {
        signal("STOP");
    }

    /** Resumes a paused process with SIGCONT. */
    public void resume() {
        signal("CONT");
    }

    /**
     * Kills the process if it runs and starts a new, empty one on the same port.
     *
     * @throws IllegalStateException if the new process does not become ready in time
     */
    public void restart() {
        relaunch(List.of());
    }

    /**
     * As {@link #restart()}, but the new process is a replica of {@code master} from its first moment, as a failed
     * master that Sentinel has replaced comes back when its configuration says so.
     *
     * @param master the server to replicate
     * @throws IllegalStateException if the new process does not become ready in time
     */
    public void restartAsReplicaOf(RedisServer master) {
        relaunch(List.of("--replicaof", master.host(), Integer.toString(master.port())));
    }

    private void relaunch(List<String> startArgs) {
        if (isRunning()) {
            resume();
            kill();
        }
        launch(startArgs);
    }

    /** Stops the process (SIGKILL; nothing is persisted anyway) and deletes the working directory. Idempotent. */
    @Override
    public void close() {
        if (isRunning()) {
            process.destroyForcibly();
            awaitExit(process);
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // The directory is temporary; the OS reclaims it if it cannot be removed now.
        }
    }

    private RedisServer startFirst() {
        IllegalStateException last = null;
        boolean fixedPort = port != 0;
        for (int attempt = 0; attempt < (fixedPort ? 1 : PORT_ATTEMPTS); attempt++) {
            if (!fixedPort) {
                port = clusterMode ? freeClusterPort() : freePort();
            }
            try {
                launch(List.of());
                return this;
            } catch (IllegalStateException e) {
                // Another process may have taken the port between probing and binding; try another.
                last = e;
            }
        }
        close();
        throw last;
    }

    private void launch(List<String> startArgs) {
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        if (sentinelConfig != null) {
            // Sentinel rewrites its configuration file as it learns the topology, so each start writes it anew.
            Path conf = dir.resolve("sentinel.conf");
            try {
                Files.writeString(conf, sentinelConfig);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            command.addAll(List.of(conf.toString(), "--sentinel"));
        }
        command.addAll(List.of("--port", Integer.toString(tls != null ? 0 : port), "--bind", HOST, "--save", "",
                "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no", "--protected-mode", "no"));
        if (tls != null) {
            // TLS only: the plain port is off, so a working client proves the traffic was encrypted. Replication
            // (and a sentinel's connections to masters, replicas and other sentinels) and the cluster bus use TLS
            // too, with the same certificate as a client's.
            command.addAll(List.of("--tls-port", Integer.toString(port), "--tls-cert-file", tls[0].toString(),
                    "--tls-key-file", tls[1].toString(), "--tls-ca-cert-file", tls[2].toString(),
                    "--tls-auth-clients", "no", "--tls-replication", "yes"));
            if (clusterMode) {
                command.addAll(List.of("--tls-cluster", "yes"));
            }
        }
        if (RedisBinary.majorVersion(binary) >= 7) {
            // Redis 7 disables DEBUG by default; fault tests need DEBUG SLEEP from loopback.
            command.addAll(List.of("--enable-debug-command", "local"));
        }
        command.addAll(extraArgs);
        command.addAll(startArgs);
        CompletableFuture<Void> ready = new CompletableFuture<>();
        synchronized (log) {
            log.clear();
        }
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + binary, e);
        }
        process = p;
        Thread drain = new Thread(() -> drain(p, ready), "redis-server-" + port + "-output");
        drain.setDaemon(true);
        drain.start();
        try {
            ready.get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
            if (tls == null) {
                call("PING");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IllegalStateException("interrupted while starting redis-server", e);
        } catch (ExecutionException | TimeoutException | UncheckedIOException e) {
            p.destroyForcibly();
            awaitExit(p);
            throw new IllegalStateException("redis-server on port " + port + " did not start: " + e.getMessage()
                    + "\n" + recentLog(), e);
        }
    }

    /** A factory of TLS sockets that trust the server's certificate authority, for {@link #call}. */
    private javax.net.ssl.SSLSocketFactory adminTls() {
        if (adminTls == null) {
            try (java.io.InputStream pem = Files.newInputStream(tls[2])) {
                java.security.KeyStore trusted =
                        java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
                trusted.load(null, null);
                int i = 0;
                for (java.security.cert.Certificate certificate
                        : java.security.cert.CertificateFactory.getInstance("X.509").generateCertificates(pem)) {
                    trusted.setCertificateEntry("ca-" + i++, certificate);
                }
                javax.net.ssl.TrustManagerFactory trust = javax.net.ssl.TrustManagerFactory.getInstance(
                        javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
                trust.init(trusted);
                javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
                context.init(null, trust.getTrustManagers(), null);
                adminTls = context.getSocketFactory();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + tls[2], e);
            } catch (java.security.GeneralSecurityException e) {
                throw new IllegalStateException("cannot trust " + tls[2] + ": " + e.getMessage(), e);
            }
        }
        return adminTls;
    }

    private void drain(Process p, CompletableFuture<Void> ready) {
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                synchronized (log) {
                    if (log.size() == LOG_LINES) {
                        log.removeFirst();
                    }
                    log.addLast(line);
                    for (Watch watch : awaited) {
                        watch.offer(line);
                    }
                }
                if (line.contains(sentinelConfig != null ? SENTINEL_READY : READY)) {
                    ready.complete(null);
                }
            }
        } catch (IOException e) {
            ready.completeExceptionally(e);
        }
        ready.completeExceptionally(new IOException("redis-server exited"));
    }

    /**
     * Waits until the running process has printed a line containing {@code text}, such as
     * {@code "MASTER <-> REPLICA sync: Finished with success"} or {@code "Cluster state changed: ok"}; lines
     * printed since its (last) start count.
     *
     * @param text  the text to wait for
     * @param bound the longest wait
     * @throws IllegalStateException if it is not printed in time
     */
    public void awaitLog(String text, Duration bound) {
        awaitLog(text, 1, bound);
    }

    /**
     * Waits until the running process has printed {@code times} lines containing {@code text} since its (last)
     * start; a sentinel, for example, prints {@code "+slave slave"} once per replica it discovers.
     *
     * @param text  the text to wait for
     * @param times how many such lines
     * @param bound the longest wait
     * @throws IllegalStateException if they are not printed in time
     */
    public void awaitLog(String text, int times, Duration bound) {
        Watch watch = new Watch(text, times);
        synchronized (log) {
            log.forEach(watch::offer);
            if (watch.seen.isDone()) {
                return;
            }
            awaited.add(watch);
        }
        try {
            watch.seen.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for '" + text + "'", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("port " + port + " did not print '" + text + "' " + times
                    + " times within " + bound + "\n" + recentLog(), e);
        } finally {
            synchronized (log) {
                awaited.remove(watch);
            }
        }
    }

    /**
     * For a replica: waits until its first synchronisation with the master has finished.
     *
     * @param bound the longest wait
     * @throws IllegalStateException if it does not finish in time
     */
    public void awaitReplicaSync(Duration bound) {
        awaitLog("MASTER <-> REPLICA sync: Finished with success", bound);
    }

    /**
     * For a sentinel: waits until it has discovered {@code replicas} replicas of its master and
     * {@code otherSentinels} other sentinels, so that it can take part in a failover.
     *
     * @param replicas       replicas to discover
     * @param otherSentinels other sentinels to discover
     * @param bound          the longest wait for each
     * @throws IllegalStateException if they are not discovered in time
     */
    public void awaitSentinelReady(int replicas, int otherSentinels, Duration bound) {
        awaitLog("+slave slave", replicas, bound);
        awaitLog("+sentinel sentinel", otherSentinels, bound);
    }

    /** Counts output lines that contain a text; completes once it has seen enough. Guarded by {@code log}. */
    private static final class Watch {
        final String text;
        final CompletableFuture<Void> seen = new CompletableFuture<>();
        int left;

        Watch(String text, int times) {
            this.text = text;
            this.left = times;
            if (times <= 0) {
                seen.complete(null);
            }
        }

        void offer(String line) {
            if (line.contains(text) && --left <= 0) {
                seen.complete(null);
            }
        }
    }

    /** @return the lines the process printed since its last start (at most 200), for diagnostics */
    public String recentLog() {
        synchronized (log) {
            return String.join("\n", log);
        }
    }

    private void signal(String name) {
        long pid = pid();
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling redis-server", e);
        }
    }

    private Process requireProcess() {
        if (process == null) {
            throw new IllegalStateException("redis-server was never started");
        }
        return process;
    }

    private static void awaitExit(Process p) {
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("redis-server " + p.pid() + " did not exit");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping redis-server", e);
        }
    }

    /** A free port below 55536 whose cluster bus port, 10000 higher, is free as well. */
    private static int freeClusterPort() {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 100; attempt++) {
            int candidate = random.nextInt(20000, 45000);
            if (isFree(candidate) && isFree(candidate + 10000)) {
                return candidate;
            }
        }
        throw new IllegalStateException("no free loopback port pair for a cluster node");
    }

    private static boolean isFree(int candidate) {
        try (ServerSocket socket = new ServerSocket(candidate, 1, InetAddress.getByName(HOST))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /** Builds a {@link RedisServer} with extra command-line arguments. */
    public static final class Builder {
        private final List<String> args = new ArrayList<>();
        private Path binary;
        private Duration startTimeout = Duration.ofSeconds(20);
        private Path[] tls;
        private int port;
        private String sentinelConfig;
        private boolean cluster;

        private Builder() {
        }

        /**
         * Runs in cluster mode, on a port whose cluster bus port (port + 10000) is free too, and with a short node
         * timeout (2 s) so that failovers in tests are quick. The node starts alone, without slots.
         *
         * @return this builder
         */
        public Builder cluster() {
            this.cluster = true;
            return args("--cluster-enabled", "yes", "--cluster-node-timeout", "2000");
        }

        /**
         * Runs a Sentinel instead of a server, monitoring the master on 127.0.0.1:{@code masterPort} under
         * {@code masterName}; it marks the master down after {@code downAfter} without answers, and fails over when
         * {@code quorum} sentinels agree. It is ready once it monitors the master.
         *
         * @param masterName the name clients ask Sentinel for
         * @param masterPort the master's loopback port
         * @param quorum     how many sentinels must agree that the master is down
         * @param downAfter  how long the master may be silent before it is considered down
         * @return this builder
         */
        public Builder sentinel(String masterName, int masterPort, int quorum, Duration downAfter) {
            Objects.requireNonNull(masterName, "masterName");
            Objects.requireNonNull(downAfter, "downAfter");
            long down = downAfter.toMillis();
            this.sentinelConfig = "sentinel monitor " + masterName + " " + HOST + " " + masterPort + " " + quorum
                    + "\nsentinel down-after-milliseconds " + masterName + " " + down
                    + "\nsentinel failover-timeout " + masterName + " " + Math.max(down * 4, 2000)
                    + "\nsentinel parallel-syncs " + masterName + " 1\n";
            return this;
        }

        /**
         * Adds redis-server arguments, such as {@code "--replicaof", "127.0.0.1", "6379"}.
         *
         * @param values the arguments
         * @return this builder
         */
        public Builder args(String... values) {
            for (String value : values) {
                args.add(Objects.requireNonNull(value, "arg"));
            }
            return this;
        }

        /**
         * Uses this binary instead of {@link RedisBinary#resolve()}.
         *
         * @param path an executable redis-server
         * @return this builder
         */
        public Builder binary(Path path) {
            this.binary = Objects.requireNonNull(path, "binary");
            return this;
        }

        /**
         * Serves TLS only, with this certificate (also the CA the server trusts) and key, both PEM; clients need no
         * certificate. As {@link #tls(Path, Path, Path)} with the certificate as its own authority.
         *
         * @param certificate a PEM certificate
         * @param key         its PEM private key
         * @return this builder
         */
        public Builder tls(Path certificate, Path key) {
            return tls(certificate, key, certificate);
        }

        /**
         * Serves TLS only, with this certificate and key, trusting certificates signed by {@code authority} (all
         * PEM); clients need no certificate. Replication, a sentinel's connections and a cluster's bus use TLS as
         * well ({@code tls-replication yes}, and {@code tls-cluster yes} in cluster mode), so every server of a
         * deployment can share one authority. {@link RedisServer#call} connects over TLS, trusting the authority.
         *
         * @param certificate a PEM certificate, also presented when this server connects to another
         * @param key         its PEM private key
         * @param authority   the PEM certificates of the authorities this server trusts
         * @return this builder
         */
        public Builder tls(Path certificate, Path key, Path authority) {
            this.tls = new Path[] {Objects.requireNonNull(certificate, "certificate"),
                    Objects.requireNonNull(key, "key"), Objects.requireNonNull(authority, "authority")};
            return this;
        }

        /**
         * Listens on this port instead of a free one.
         *
         * @param value a port number from 1 to 65535
         * @return this builder
         */
        public Builder port(int value) {
            if (value < 1 || value > 65535) {
                throw new IllegalArgumentException("port must be from 1 to 65535: " + value);
            }
            this.port = value;
            return this;
        }

        /**
         * How long to wait for the server to accept connections.
         *
         * @param timeout a positive duration
         * @return this builder
         */
        public Builder startTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "startTimeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("startTimeout must be positive: " + timeout);
            }
            this.startTimeout = timeout;
            return this;
        }

        /**
         * Starts the server.
         *
         * @return the running server
         * @throws IllegalStateException if it does not become ready in time
         */
        public RedisServer start() {
            return new RedisServer(this).startFirst();
        }
    }
}
