package com.hotkv;

import static org.junit.jupiter.api.Assertions.*;

import java.net.URI;
import java.nio.file.Path;

import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocketFactory;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/** Connecting over TLS (CA file + client certificate) and with a password. */
class TlsAuthTest {
    static Path certs;
    static int tlsPort;
    static HotKVServer tlsServer;   // plain port + TLS port (tls-auth-clients yes, the default)
    static HotKVServer authServer;  // --requirepass s3cret

    @BeforeAll
    static void startServers() throws Exception {
        certs = HotKVServer.certs();
        tlsPort = HotKVServer.freePort();
        tlsServer = HotKVServer.start(
                "--tls-port", Integer.toString(tlsPort),
                "--tls-cert-file", certs.resolve("server.crt").toString(),
                "--tls-key-file", certs.resolve("server.key").toString(),
                "--tls-ca-cert-file", certs.resolve("ca.crt").toString());
        authServer = HotKVServer.start("--requirepass", "s3cret");
    }

    @AfterAll
    static void stopServers() {
        if (tlsServer != null) tlsServer.stop();
        if (authServer != null) authServer.stop();
    }

    static SSLSocketFactory factory(boolean withClientCert) throws Exception {
        return withClientCert
                ? HotKV.sslSocketFactory(certs.resolve("ca.crt"), certs.resolve("client.crt"), certs.resolve("client.key"))
                : HotKV.sslSocketFactory(certs.resolve("ca.crt"), null, null);
    }

    static JedisClientConfig tlsConfig(boolean withClientCert) throws Exception {
        SSLParameters params = new SSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS"); // check the server's name (SAN 127.0.0.1)
        return DefaultJedisClientConfig.builder()
                .ssl(true).sslSocketFactory(factory(withClientCert)).sslParameters(params).build();
    }

    static void pingSetGet(HotKV c, String key) {
        assertEquals("PONG", c.ping());
        assertEquals("OK", c.set(key, "value-" + key));
        assertEquals("value-" + key, c.get(key));
    }

    static String messages(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null && sb.length() < 4000; c = c.getCause()) sb.append(c).append(" | ");
        return sb.toString();
    }

    @Test
    void tlsWithClientCertificate() throws Exception {
        try (HotKV c = new HotKV("127.0.0.1", tlsPort, tlsConfig(true))) {
            pingSetGet(c, "tls:java");
        }
        try (HotKV plain = new HotKV("127.0.0.1", tlsServer.port)) {
            assertEquals("value-tls:java", plain.get("tls:java"));
        }
    }

    @Test
    void tlsHotkvsUri() throws Exception {
        try (HotKV c = new HotKV(URI.create("hotkvs://localhost:" + tlsPort), factory(true))) {
            pingSetGet(c, "tls:java:uri");
            try (Transaction tx = c.transaction()) { // a pooled connection, also over TLS
                tx.set("tls:java:uri", "changed");
                assertNotNull(tx.exec());
            }
            assertEquals("changed", c.get("tls:java:uri"));
        }
    }

    @Test
    void tlsWithoutClientCertificateFails() throws Exception {
        // The same configuration as tlsWithClientCertificate, less the client certificate. With
        // TLS 1.3 the server's certificate_required alert comes after the client's handshake, so
        // Jedis sees either that alert or a broken pipe / reset when it writes its first command.
        JedisClientConfig config = tlsConfig(false);
        HotKVConnectionException e = assertThrows(HotKVConnectionException.class,
                () -> new HotKV("127.0.0.1", tlsPort, config).close());
        assertTrue(e.getMessage().startsWith("cannot connect to HotKV at 127.0.0.1:" + tlsPort), messages(e));
    }

    @Test
    void tlsUntrustedServerFails() throws Exception {
        // The JVM's default trust store does not hold the test CA.
        SSLSocketFactory f = HotKV.sslSocketFactory(null, certs.resolve("client.crt"), certs.resolve("client.key"));
        JedisClientConfig config = DefaultJedisClientConfig.builder().ssl(true).sslSocketFactory(f).build();
        HotKVConnectionException e = assertThrows(HotKVConnectionException.class,
                () -> new HotKV("127.0.0.1", tlsPort, config).close());
        assertTrue(messages(e).contains("PKIX") || messages(e).contains("certif"), messages(e));
    }

    @Test
    void pemKeyFormats() throws Exception {
        // SEC1 (what gencerts writes) and the same key as PKCS#8.
        java.security.PrivateKey sec1 = PemTls.readKey(certs.resolve("client.key"));
        assertEquals("EC", sec1.getAlgorithm());
        Path dir = java.nio.file.Files.createTempDirectory("hotkv-pem");
        try {
            Path pkcs8 = writePem(dir.resolve("pkcs8.key"), "PRIVATE KEY", sec1.getEncoded());
            assertArrayEquals(sec1.getEncoded(), PemTls.readKey(pkcs8).getEncoded());
            // PKCS#1 RSA: the OCTET STRING at the end of a 2048-bit key's PKCS#8 encoding.
            java.security.KeyPairGenerator g = java.security.KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            byte[] p8 = g.generateKeyPair().getPrivate().getEncoded();
            assertEquals(0x04, p8[22]);
            assertEquals((byte) 0x82, p8[23]);
            int len = ((p8[24] & 0xff) << 8) | (p8[25] & 0xff);
            byte[] pkcs1 = java.util.Arrays.copyOfRange(p8, 26, 26 + len);
            Path rsa = writePem(dir.resolve("rsa.key"), "RSA PRIVATE KEY", pkcs1);
            assertArrayEquals(p8, PemTls.readKey(rsa).getEncoded());
            // gencerts' enc.key is encrypted the legacy PEM way: refused with a clear message.
            java.io.IOException e = assertThrows(java.io.IOException.class, () -> PemTls.readKey(certs.resolve("enc.key")));
            assertTrue(e.getMessage().contains("encrypted"), e.getMessage());
        } finally {
            for (String f : new String[] {"pkcs8.key", "rsa.key"}) java.nio.file.Files.deleteIfExists(dir.resolve(f));
            java.nio.file.Files.delete(dir);
        }
    }

    static Path writePem(Path p, String type, byte[] der) throws java.io.IOException {
        String b64 = java.util.Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
        return java.nio.file.Files.writeString(p, "-----BEGIN " + type + "-----\n" + b64 + "\n-----END " + type + "-----\n");
    }

    @Test
    void passwordRequired() {
        // The constructor's PING is refused; it closes its pool and rethrows.
        JedisDataException e = assertThrows(JedisDataException.class,
                () -> new HotKV("127.0.0.1", authServer.port).close());
        assertTrue(e.getMessage().startsWith("NOAUTH"), e.getMessage());
    }

    @Test
    void wrongPasswordRefused() {
        JedisClientConfig config = DefaultJedisClientConfig.builder().password("wrong").build();
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> new HotKV("127.0.0.1", authServer.port, config).close());
        assertTrue(messages(e).contains("WRONGPASS"), messages(e));
    }

    @Test
    void password() {
        try (HotKV c = new HotKV("127.0.0.1", authServer.port,
                DefaultJedisClientConfig.builder().password("s3cret").build())) {
            pingSetGet(c, "auth:java:password");
        }
    }

    @Test
    void userDefaultAndPassword() {
        try (HotKV c = new HotKV("127.0.0.1", authServer.port,
                DefaultJedisClientConfig.builder().user("default").password("s3cret").build())) {
            pingSetGet(c, "auth:java:user");
        }
    }

    @Test
    void passwordInUri() {
        try (HotKV c = new HotKV("hotkv://default:s3cret@127.0.0.1:" + authServer.port)) {
            pingSetGet(c, "auth:java:uri");
        }
    }
}
