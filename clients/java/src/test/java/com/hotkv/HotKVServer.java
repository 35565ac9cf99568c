package com.hotkv;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;

/**
 * Builds the HotKV server from the repository (go build ./cmd/hotkv) once per JVM, and runs it on
 * a free port until the JVM exits.
 */
final class HotKVServer {
    private static HotKVServer instance;

    final int port;
    private final Process process;
    private final Path workDir;

    private HotKVServer(int port, Process process, Path workDir) {
        this.port = port;
        this.process = process;
        this.workDir = workDir;
    }

    static synchronized HotKVServer get() throws Exception {
        if (instance == null) {
            instance = start();
            Runtime.getRuntime().addShutdownHook(new Thread(instance::stop));
        }
        return instance;
    }

    private static HotKVServer start() throws Exception {
        File repo = new File(System.getProperty("hotkv.repo", "../..")).getCanonicalFile();
        Path workDir = Files.createTempDirectory("hotkv-java-test");
        Path bin = workDir.resolve("hotkv");
        Process build = new ProcessBuilder("go", "build", "-o", bin.toString(), "./cmd/hotkv")
                .directory(repo).redirectErrorStream(true).redirectOutput(workDir.resolve("build.log").toFile()).start();
        if (!build.waitFor(5, TimeUnit.MINUTES) || build.exitValue() != 0)
            throw new IllegalStateException("go build failed in " + repo + ":\n" + Files.readString(workDir.resolve("build.log")));

        int port = freePort();
        Path data = Files.createDirectories(workDir.resolve("data"));
        Process p = new ProcessBuilder(bin.toString(), "--port", Integer.toString(port), "--save", "", "--dir", data.toString())
                .redirectErrorStream(true).redirectOutput(workDir.resolve("server.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive())
                throw new IllegalStateException("hotkv exited:\n" + Files.readString(workDir.resolve("server.log")));
            try (Socket s = new Socket("127.0.0.1", port)) {
                return new HotKVServer(port, p, workDir);
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
        try (var files = Files.walk(workDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
        }
    }
}
