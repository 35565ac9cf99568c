package com.hotkv;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * Builds an {@link SSLSocketFactory} from PEM files, the ones redis-server and HotKV take
 * ({@code tls-ca-cert-file}, {@code tls-cert-file}, {@code tls-key-file}). See
 * {@link HotKV#sslSocketFactory(Path, Path, Path)}.
 */
final class PemTls {
    private PemTls() { }

    private static final Pattern PEM = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----", Pattern.DOTALL);

    static SSLSocketFactory sslSocketFactory(Path caCert, Path clientCert, Path clientKey) throws IOException {
        if ((clientCert == null) != (clientKey == null))
            throw new IllegalArgumentException("give both the client certificate and its key, or neither");
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            TrustManagerFactory tmf = null;
            if (caCert != null) {
                KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
                trust.load(null, null);
                int i = 0;
                for (Certificate c : readCerts(cf, caCert)) trust.setCertificateEntry("ca" + i++, c);
                if (i == 0) throw new IOException("no certificate in " + caCert);
                tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(trust);
            }
            KeyManagerFactory kmf = null;
            if (clientCert != null) {
                Collection<? extends Certificate> chain = readCerts(cf, clientCert);
                if (chain.isEmpty()) throw new IOException("no certificate in " + clientCert);
                char[] pw = new char[0];
                KeyStore keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry("client", readKey(clientKey), pw, chain.toArray(new Certificate[0]));
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, pw);
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
            return ctx.getSocketFactory();
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot set up TLS from PEM files: " + e.getMessage(), e);
        }
    }

    private static Collection<? extends Certificate> readCerts(CertificateFactory cf, Path p)
            throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(p)) {
            return cf.generateCertificates(in);
        }
    }

    /** Reads an unencrypted PKCS#8 ("PRIVATE KEY"), SEC1 ("EC PRIVATE KEY") or PKCS#1 ("RSA PRIVATE KEY") key. */
    static PrivateKey readKey(Path p) throws IOException, GeneralSecurityException {
        String text = Files.readString(p, StandardCharsets.US_ASCII);
        Matcher m = PEM.matcher(text);
        while (m.find()) {
            String type = m.group(1);
            if (!type.endsWith("PRIVATE KEY")) continue;
            String body = m.group(2);
            if (body.contains("Proc-Type:") || type.startsWith("ENCRYPTED"))
                throw new IOException("encrypted private keys are not supported: " + p);
            byte[] der = Base64.getMimeDecoder().decode(body.trim());
            switch (type) {
                case "PRIVATE KEY":
                    return keyFromPkcs8(der);
                case "EC PRIVATE KEY":
                    return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(
                            pkcs8(seq(OID_EC_PUBLIC_KEY, ecCurveOid(der)), der)));
                case "RSA PRIVATE KEY":
                    return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(
                            pkcs8(seq(OID_RSA_ENCRYPTION, NULL), der)));
                default:
                    throw new IOException("unsupported PEM key type '" + type + "' in " + p);
            }
        }
        throw new IOException("no private key in " + p);
    }

    private static PrivateKey keyFromPkcs8(byte[] der) throws GeneralSecurityException {
        GeneralSecurityException last = null;
        for (String alg : new String[] {"EC", "RSA", "Ed25519", "Ed448"}) {
            try {
                return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                last = e;
            }
        }
        throw last;
    }

    // --- a little DER, enough to wrap SEC1 and PKCS#1 keys in PKCS#8 ---

    private static final byte[] OID_EC_PUBLIC_KEY = {0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01};
    private static final byte[] OID_RSA_ENCRYPTION =
            {0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01};
    private static final byte[] NULL = {0x05, 0x00};

    /** The curve OID (the whole TLV) in a SEC1 ECPrivateKey's [0] parameters. */
    private static byte[] ecCurveOid(byte[] sec1) throws IOException {
        int[] outer = header(sec1, 0);
        if (sec1[0] != 0x30) throw new IOException("EC PRIVATE KEY: not a DER SEQUENCE");
        int pos = outer[0], end = outer[0] + outer[1];
        while (pos < end) {
            int[] h = header(sec1, pos);
            if ((sec1[pos] & 0xff) == 0xa0) {
                int[] oid = header(sec1, h[0]);
                if (sec1[h[0]] != 0x06) break;
                byte[] out = new byte[oid[0] - h[0] + oid[1]];
                System.arraycopy(sec1, h[0], out, 0, out.length);
                return out;
            }
            pos = h[0] + h[1];
        }
        throw new IOException("EC PRIVATE KEY without curve parameters: convert it to PKCS#8 "
                + "(openssl pkcs8 -topk8 -nocrypt)");
    }

    /** {content offset, content length} of the DER element at pos. */
    private static int[] header(byte[] d, int pos) throws IOException {
        if (pos + 1 >= d.length) throw new IOException("truncated DER");
        int len = d[pos + 1] & 0xff, off = pos + 2;
        if (len >= 0x80) {
            int n = len & 0x7f;
            if (n == 0 || n > 3 || off + n > d.length) throw new IOException("bad DER length");
            len = 0;
            for (int i = 0; i < n; i++) len = (len << 8) | (d[off++] & 0xff);
        }
        if (off + len > d.length) throw new IOException("truncated DER");
        return new int[] {off, len};
    }

    private static byte[] pkcs8(byte[] algorithm, byte[] key) {
        return seq(new byte[] {0x02, 0x01, 0x00}, algorithm, tlv(0x04, key));
    }

    private static byte[] seq(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) b.writeBytes(p);
        return tlv(0x30, b.toByteArray());
    }

    private static byte[] tlv(int tag, byte[] content) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(tag);
        int n = content.length;
        if (n < 0x80) {
            b.write(n);
        } else if (n < 0x100) {
            b.write(0x81);
            b.write(n);
        } else if (n < 0x10000) {
            b.write(0x82);
            b.write(n >> 8);
            b.write(n);
        } else {
            b.write(0x83);
            b.write(n >> 16);
            b.write(n >> 8);
            b.write(n);
        }
        b.writeBytes(content);
        return b.toByteArray();
    }
}
