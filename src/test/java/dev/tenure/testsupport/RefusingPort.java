package dev.tenure.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A loopback port that refuses connections and that no other process can take while it is held: a TCP socket bound
 * to it, never listening. For a test of a call that cannot connect (an API server or webhook that is down). The
 * free-port idiom (open a server socket on port 0, close it, use the number) leaves the port to the next bind on the
 * machine: another test JVM's emulated API server may get it, the call meant to fail then reaches that server, and
 * its RBAC recording charges the request to the operator (issue 48, docs/development.md).
 */
public final class RefusingPort implements AutoCloseable {
    private final Socket socket;

    private RefusingPort(Socket socket) {
        this.socket = socket;
    }

    /** Binds a fresh loopback port; held until {@link #close()}. */
    public static RefusingPort hold() throws IOException {
        Socket socket = new Socket();
        try {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        return new RefusingPort(socket);
    }

    public int port() {
        return socket.getLocalPort();
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String url() {
        return "http://127.0.0.1:" + port();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
