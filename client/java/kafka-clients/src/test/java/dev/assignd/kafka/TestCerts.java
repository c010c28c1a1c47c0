package dev.assignd.kafka;

import java.io.IOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Throwaway certificates made at test time (nothing is committed): a CA, a
 * server certificate for 127.0.0.1 and localhost, and a client certificate,
 * written as PEM files (keys in PKCS#8) into a temporary directory.
 */
final class TestCerts {
  private static final AtomicLong SERIAL = new AtomicLong(1);

  final Path dir;
  final Path caCert;
  final Path serverCert;
  final Path serverKey;
  final Path clientCert;
  final Path clientKey;

  private TestCerts(Path dir) throws Exception {
    this.dir = dir;
    KeyPair ca = keyPair();
    X500Name caName = new X500Name("CN=assignd java test CA " + SERIAL.get());
    X509CertificateHolder caHolder = sign(caName, ca, caName, ca.getPublic(), true, null, null);
    caCert = write("ca.pem", caHolder);

    KeyPair server = keyPair();
    GeneralNames sans = new GeneralNames(new GeneralName[] {
        new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
        new GeneralName(GeneralName.dNSName, "localhost"),
        new GeneralName(GeneralName.dNSName, "assignd.test")});
    serverCert = write("server.pem", sign(caName, ca, new X500Name("CN=assignd.test"), server.getPublic(), false, sans,
        KeyPurposeId.id_kp_serverAuth));
    serverKey = writeKey("server-key.pem", server.getPrivate());

    KeyPair client = keyPair();
    clientCert = write("client.pem", sign(caName, ca, new X500Name("CN=java-leader"), client.getPublic(), false, null,
        KeyPurposeId.id_kp_clientAuth));
    clientKey = writeKey("client-key.pem", client.getPrivate());
  }

  static TestCerts create() throws Exception {
    Path d = Files.createTempDirectory("assignd-certs");
    d.toFile().deleteOnExit();
    return new TestCerts(d);
  }

  private static KeyPair keyPair() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    return g.generateKeyPair();
  }

  private static X509CertificateHolder sign(X500Name issuer, KeyPair issuerKey, X500Name subject,
      java.security.PublicKey subjectKey, boolean isCa, GeneralNames sans, KeyPurposeId purpose) throws Exception {
    Instant now = Instant.now();
    JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
        Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), subject, subjectKey);
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
    if (isCa) {
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.digitalSignature));
    } else {
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
    }
    if (sans != null) {
      b.addExtension(Extension.subjectAlternativeName, false, sans);
    }
    ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey.getPrivate());
    return b.build(signer);
  }

  private Path write(String name, X509CertificateHolder cert) throws IOException {
    Path p = dir.resolve(name);
    try (Writer w = Files.newBufferedWriter(p); JcaPEMWriter pw = new JcaPEMWriter(w)) {
      pw.writeObject(cert);
    }
    p.toFile().deleteOnExit();
    return p;
  }

  private Path writeKey(String name, PrivateKey key) throws Exception {
    Path p = dir.resolve(name);
    try (Writer w = Files.newBufferedWriter(p); JcaPEMWriter pw = new JcaPEMWriter(w)) {
      pw.writeObject(new JcaPKCS8Generator(key, null));
    }
    p.toFile().deleteOnExit();
    return p;
  }
}
