package dev.tenure.maintenance.machine;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Names derived from a node name that must stay within a limit: a Lease name (a DNS subdomain, at most 253
 * characters, so {@code node-} plus a 253-character node name is refused by kube-apiserver) and a metric
 * label value (kept short so one long node name does not bloat every scrape). A name that fits is kept as it
 * is, so the medik8s-compatible {@code node-<nodeName>} stays exact for every usual node name; a longer one
 * keeps its head and ends in {@code -<10 hex digits of its SHA-256>}, so two long names differing only in
 * their tail still get different results, and the result is a valid DNS subdomain when the input is one.
 */
public final class BoundedNames {

    /** kube-apiserver's limit on a Lease name (DNS subdomain, RFC 1123). */
    public static final int DNS_SUBDOMAIN_MAX = 253;
    /** The longest node label value on a metric series. */
    public static final int LABEL_MAX = 63;

    private static final int HASH_CHARS = 10;

    private BoundedNames() {}

    /** {@code name} when it fits in {@code max} characters, else its head, {@code -} and a hash of all of it. */
    public static String shorten(String name, int max) {
        if (max <= HASH_CHARS + 1) {
            throw new IllegalArgumentException("max: must be more than " + (HASH_CHARS + 1) + ", was " + max);
        }
        if (name.length() <= max) {
            return name;
        }
        String head = name.substring(0, max - HASH_CHARS - 1);
        // A DNS label ends with an alphanumeric: no "-" or "." right before the "-" that starts the hash.
        int end = head.length();
        while (end > 0 && (head.charAt(end - 1) == '-' || head.charAt(end - 1) == '.')) {
            end--;
        }
        return head.substring(0, end) + "-" + hash(name);
    }

    private static String hash(String name) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, HASH_CHARS);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }
}
