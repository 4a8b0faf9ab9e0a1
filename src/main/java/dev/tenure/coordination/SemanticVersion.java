package dev.tenure.coordination;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A semantic version {@code major.minor.patch[-pre.release][+build]}, parsed tolerantly and ordered the way the
 * upstream CLE controller orders candidate versions (blang/semver {@code ParseTolerant} + {@code Compare}):
 * a leading {@code v} and surrounding spaces are dropped, leading zeros are dropped, {@code 1.2} means
 * {@code 1.2.0}; a release sorts after its pre-releases; build metadata is ignored.
 */
public record SemanticVersion(long major, long minor, long patch, List<String> preRelease)
        implements Comparable<SemanticVersion> {

    public static final SemanticVersion ZERO = new SemanticVersion(0, 0, 0, List.of());

    public SemanticVersion {
        preRelease = List.copyOf(preRelease);
    }

    /** The version, or empty when {@code text} is not a semantic version even after the tolerant clean-up. */
    public static Optional<SemanticVersion> parseTolerant(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String s = text.strip();
        if (s.startsWith("v")) {
            s = s.substring(1);
        }
        String[] parts = s.split("\\.", 3);
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i];
            if (p.length() > 1) {
                String trimmed = p.replaceFirst("^0+", "");
                if (trimmed.isEmpty() || !Character.isDigit(trimmed.charAt(0))) {
                    trimmed = "0" + trimmed;
                }
                parts[i] = trimmed;
            }
        }
        if (parts.length < 3) {
            String last = parts[parts.length - 1];
            if (last.contains("+") || last.contains("-")) {
                return Optional.empty();
            }
            String[] padded = {"0", "0", "0"};
            System.arraycopy(parts, 0, padded, 0, parts.length);
            parts = padded;
        }
        return parseStrict(parts);
    }

    private static Optional<SemanticVersion> parseStrict(String[] parts) {
        Optional<Long> major = numericPart(parts[0]);
        Optional<Long> minor = numericPart(parts[1]);
        if (major.isEmpty() || minor.isEmpty()) {
            return Optional.empty();
        }
        String rest = parts[2];
        int build = rest.indexOf('+');
        if (build >= 0) {
            if (!validIdentifiers(rest.substring(build + 1), false)) {
                return Optional.empty();
            }
            rest = rest.substring(0, build);
        }
        List<String> pre = List.of();
        int dash = rest.indexOf('-');
        if (dash >= 0) {
            String preText = rest.substring(dash + 1);
            if (!validIdentifiers(preText, true)) {
                return Optional.empty();
            }
            pre = List.of(preText.split("\\.", -1));
            rest = rest.substring(0, dash);
        }
        Optional<Long> patch = numericPart(rest);
        if (patch.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new SemanticVersion(major.get(), minor.get(), patch.get(), pre));
    }

    private static Optional<Long> numericPart(String s) {
        if (s.isEmpty() || !s.chars().allMatch(Character::isDigit) || (s.length() > 1 && s.charAt(0) == '0')) {
            return Optional.empty();
        }
        try {
            return Optional.of(Long.parseLong(s));
        } catch (NumberFormatException tooLarge) {
            return Optional.empty();
        }
    }

    private static boolean validIdentifiers(String dotted, boolean preRelease) {
        for (String id : dotted.split("\\.", -1)) {
            if (id.isEmpty() || !id.chars().allMatch(c -> (Character.isLetterOrDigit(c) && c < 128) || c == '-')) {
                return false;
            }
            if (preRelease && isNumeric(id) && id.length() > 1 && id.charAt(0) == '0') {
                return false;
            }
        }
        return true;
    }

    private static boolean isNumeric(String id) {
        return !id.isEmpty() && id.chars().allMatch(Character::isDigit);
    }

    @Override
    public int compareTo(SemanticVersion o) {
        int c = Long.compare(major, o.major);
        if (c == 0) {
            c = Long.compare(minor, o.minor);
        }
        if (c == 0) {
            c = Long.compare(patch, o.patch);
        }
        if (c != 0) {
            return Integer.signum(c);
        }
        if (preRelease.isEmpty() || o.preRelease.isEmpty()) {
            // a release is newer than any of its pre-releases
            return Boolean.compare(preRelease.isEmpty(), o.preRelease.isEmpty());
        }
        for (int i = 0; i < Math.min(preRelease.size(), o.preRelease.size()); i++) {
            int p = comparePreReleaseIdentifier(preRelease.get(i), o.preRelease.get(i));
            if (p != 0) {
                return p;
            }
        }
        return Integer.signum(Integer.compare(preRelease.size(), o.preRelease.size()));
    }

    private static int comparePreReleaseIdentifier(String a, String b) {
        boolean an = isNumeric(a);
        boolean bn = isNumeric(b);
        if (an && bn) {
            return a.length() != b.length() ? Integer.compare(a.length(), b.length()) : Integer.signum(a.compareTo(b));
        }
        if (an != bn) {
            return an ? -1 : 1; // numeric identifiers sort before alphanumeric ones
        }
        return Integer.signum(a.compareTo(b));
    }

    @Override
    public String toString() {
        String core = major + "." + minor + "." + patch;
        return preRelease.isEmpty() ? core : core + "-" + String.join(".", new ArrayList<>(preRelease));
    }
}
