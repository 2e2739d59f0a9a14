package dev.warden.redisserver;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates for TLS tests, made by the JDK's {@code keytool} in a directory of the caller's: a certificate
 * authority, certificates it signs (for 127.0.0.1 or a client), and a self-signed one; PEM files, as redis-server
 * and {@code LockConfig} read them. Valid for two days.
 */
public final class Certificates {
    private static final String PASSWORD = "changeit";

    private Certificates() {
    }

    /**
     * Makes a certificate authority: its key store {@code ca.p12} in {@code dir}, and its certificate as PEM.
     *
     * @param dir where the files go
     * @return the authority's certificate, {@code ca.crt}
     * @throws IllegalStateException if keytool fails
     */
    public static Path authority(Path dir) {
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=warden-test-ca", "-ext", "bc:c", "-storetype", "PKCS12",
                "-keystore", dir.resolve("ca.p12").toString(), "-storepass", PASSWORD, "-keypass", PASSWORD);
        Path pem = dir.resolve("ca.crt");
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", dir.resolve("ca.p12").toString(),
                "-storepass", PASSWORD, "-file", pem.toString());
        return pem;
    }

    /**
     * Makes a key and a certificate for {@code cn}, valid for 127.0.0.1, signed by the {@link #authority} made in
     * the same directory.
     *
     * @param dir   where the authority is and the files go
     * @param alias the files' name: {@code <alias>.crt}, {@code <alias>.key}
     * @param cn    the certificate's common name
     * @return {certificate, key}, both PEM
     * @throws IllegalStateException if keytool fails or the key cannot be read back
     */
    public static Path[] signed(Path dir, String alias, String cn) {
        Path keystore = dir.resolve(alias + ".p12");
        keytool("-genkeypair", "-alias", alias, "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=" + cn, "-storetype", "PKCS12", "-keystore", keystore.toString(),
                "-storepass", PASSWORD, "-keypass", PASSWORD);
        Path request = dir.resolve(alias + ".csr");
        keytool("-certreq", "-alias", alias, "-keystore", keystore.toString(), "-storepass", PASSWORD,
                "-file", request.toString());
        Path certificate = dir.resolve(alias + ".crt");
        keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", dir.resolve("ca.p12").toString(),
                "-storepass", PASSWORD, "-infile", request.toString(), "-outfile", certificate.toString(),
                "-validity", "2", "-ext", "SAN=ip:127.0.0.1");
        return new Path[] {certificate, writeKey(keystore, alias, dir.resolve(alias + ".key"))};
    }

    /**
     * Makes a self-signed certificate for 127.0.0.1 and its key.
     *
     * @param dir where the files go: {@code server.crt}, {@code server.key}
     * @return {certificate, key}, both PEM
     * @throws IllegalStateException if keytool fails or the key cannot be read back
     */
    public static Path[] selfSigned(Path dir) {
        Path keystore = dir.resolve("server.p12");
        keytool("-genkeypair", "-alias", "redis", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD);
        Path certificate = dir.resolve("server.crt");
        try {
            Files.writeString(certificate, pem("CERTIFICATE", load(keystore).getCertificate("redis").getEncoded()));
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot write the certificate of " + keystore, e);
        }
        return new Path[] {certificate, writeKey(keystore, "redis", dir.resolve("server.key"))};
    }

    private static Path writeKey(Path keystore, String alias, Path to) {
        try {
            Files.writeString(to, pem("PRIVATE KEY", load(keystore).getKey(alias, PASSWORD.toCharArray())
                    .getEncoded()));
            return to;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot write the key of " + alias + " from " + keystore, e);
        }
    }

    private static KeyStore load(Path keystore) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, PASSWORD.toCharArray());
        }
        return store;
    }

    private static void keytool(String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        try {
            Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!keytool.waitFor(60, TimeUnit.SECONDS)) {
                keytool.destroyForcibly();
                throw new IllegalStateException("keytool did not finish within 60 s: " + command);
            }
            if (keytool.exitValue() != 0) {
                throw new IllegalStateException("keytool failed (" + keytool.exitValue() + "): " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run keytool: " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while keytool ran", e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
