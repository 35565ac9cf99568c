package com.hotkv;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Builds the HotKV server from the repository (go build ./cmd/hotkv) once per JVM, and runs it on
 * a free port until the JVM exits. {@link #start(String...)} runs more servers with extra
 * arguments; {@link #certs()} writes test certificates (go run ./internal/testcerts/gencerts).
 */
final class HotKVServer {
    private static HotKVServer instance;
    private static Path binary;
    private static Path certs;
    private static Path buildDir;

    final int port;
    private final Process process;
    private final Path workDir;

    private HotKVServer(int port, Process process, Path workDir) {
        this.port = port;
        this.process = process;
        this.workDir = workDir;
    }

    /** The server shared by all tests. */
    static synchronized HotKVServer get() throws Exception {
        if (instance == null) {
            instance = start();
        }
        return instance;
    }

    private static File repo() throws IOException {
        return new File(System.getProperty("hotkv.repo", "../..")).getCanonicalFile();
    }

    private static synchronized Path buildDir() throws IOException {
        if (buildDir == null) {
            buildDir = Files.createTempDirectory("hotkv-java-build");
            Path dir = buildDir;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir)));
        }
        return buildDir;
    }

    private static void run(Path log, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(repo()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0)
            throw new IllegalStateException(String.join(" ", cmd) + " failed in " + repo() + ":\n" + Files.readString(log));
    }

    private static synchronized Path binary() throws Exception {
        if (binary == null) {
            Path bin = buildDir().resolve("hotkv");
            run(buildDir().resolve("build.log"), "go", "build", "-o", bin.toString(), "./cmd/hotkv");
            binary = bin;
        }
        return binary;
    }

    /** A directory holding ca.crt, server.crt/key and client.crt/key, written once per JVM. */
    static synchronized Path certs() throws Exception {
        if (certs == null) {
            Path dir = Files.createDirectories(buildDir().resolve("certs"));
            run(buildDir().resolve("gencerts.log"), "go", "run", "./internal/testcerts/gencerts", dir.toString());
            certs = dir;
        }
        return certs;
    }

    /** Starts a server on a free port with the extra arguments; it is stopped by {@link #stop()} or at JVM exit. */
    static HotKVServer start(String... extraArgs) throws Exception {
        Path bin = binary();
        Path workDir = Files.createTempDirectory("hotkv-java-test");
        int port = freePort();
        Path data = Files.createDirectories(workDir.resolve("data"));
        List<String> cmd = new ArrayList<>(List.of(bin.toString(), "--port", Integer.toString(port), "--save", "", "--dir", data.toString()));
        cmd.addAll(List.of(extraArgs));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true).redirectOutput(workDir.resolve("server.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive())
                throw new IllegalStateException("hotkv exited:\n" + Files.readString(workDir.resolve("server.log")));
            try (Socket s = new Socket("127.0.0.1", port)) {
                HotKVServer server = new HotKVServer(port, p, workDir);
                Runtime.getRuntime().addShutdownHook(new Thread(server::stop));
                return server;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        p.destroyForcibly();
        throw new IllegalStateException("hotkv did not start listening on port " + port);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    void stop() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly();
        } catch (InterruptedException e) {
            process.destroyForcibly();
        }
        deleteTree(workDir);
    }

    private static void deleteTree(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
        }
    }
}
