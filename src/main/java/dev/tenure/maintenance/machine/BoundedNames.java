package dev.tenure.maintenance.machine;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.Set;

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

    /**
     * A label that names things users name (a PodDisruptionBudget, a hook's owner), bounded in count as well as in
     * length: the first {@code max} distinct names seen keep a series of their own ({@link #shorten}ed to {@link
     * #LABEL_MAX}), every later one is counted under {@value #OTHER}. A counter's series cannot be renamed once
     * scraped, so the bound is "first seen", not "largest": PromQL's {@code topk} ranks the series that exist, and a
     * growing {@value #OTHER} says the bound was reached. Thread-safe.
     */
    public static final class FirstSeen {

        /** The label value of every name past the bound. */
        public static final String OTHER = "other";

        private final int max;
        private final Set<String> admitted = new LinkedHashSet<>();

        public FirstSeen(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("max: must be at least 1, was " + max);
            }
            this.max = max;
        }

        /** The label value for {@code name}: itself (shortened) while fewer than {@code max} are admitted, else other. */
        public synchronized String label(String name) {
            String label = shorten(name, LABEL_MAX);
            if (admitted.contains(label)) {
                return label;
            }
            if (admitted.size() < max && !OTHER.equals(label)) {
                admitted.add(label);
                return label;
            }
            return OTHER;
        }
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
