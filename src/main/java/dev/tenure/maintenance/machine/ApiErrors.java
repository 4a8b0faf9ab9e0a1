package dev.tenure.maintenance.machine;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * An API error as people read it in status and events: one line, the HTTP code, the Status reason and its message
 * ({@code HTTP 500 InternalError: etcdserver: request timed out}), never fabric8's {@code Status(...)} dump.
 */
public final class ApiErrors {

    /** A message is cut after this many characters (status.lastError and condition messages stay readable). */
    static final int MAX = 300;

    private ApiErrors() {}

    public static String oneLine(KubernetesClientException e) {
        Status status = e.getStatus();
        int code = e.getCode() > 0 ? e.getCode() : status == null || status.getCode() == null ? 0 : status.getCode();
        String reason = status == null ? null : status.getReason();
        String message = status == null ? null : status.getMessage();
        if (message == null || message.isBlank()) {
            // no Status body (a connection error, a proxy's page): the first line of the client's message
            message = firstLine(e.getMessage());
        }
        StringBuilder line = new StringBuilder(code > 0 ? "HTTP " + code : "no HTTP answer");
        if (reason != null && !reason.isBlank()) {
            line.append(' ').append(reason);
        }
        if (message != null && !message.isBlank()) {
            line.append(": ").append(message);
        }
        return cut(line.toString().replaceAll("\\s*[\\r\\n]+\\s*", " ").strip());
    }

    private static String firstLine(String m) {
        if (m == null) {
            return null;
        }
        int nl = m.indexOf('\n');
        String first = nl < 0 ? m : m.substring(0, nl);
        int dump = first.indexOf("Status(");
        return dump < 0 ? first : first.substring(0, dump).strip();
    }

    private static String cut(String m) {
        return m.length() <= MAX ? m : m.substring(0, MAX - 1) + "…";
    }
}
