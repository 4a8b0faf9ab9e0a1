package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 36's size rule: no main source file over 400 lines unless its class comment says why, in a sentence that
 * contains "lines, on purpose". A file that grows past the line without one fails here, naming itself.
 */
class MainFileSizeTest {
    static final int LIMIT = 400;
    static final String REASON = "lines, on purpose";

    @Test
    void everyLongMainFileSaysWhyItIsLong() throws IOException {
        List<String> unexplained;
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            unexplained = files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> lines(p).size() > LIMIT)
                    .filter(p -> !classComment(lines(p)).contains(REASON))
                    .map(p -> p + " (" + lines(p).size() + " lines)")
                    .sorted()
                    .toList();
        }
        assertThat(unexplained)
                .as("main files over %d lines whose class comment has no sentence with \"%s\"", LIMIT, REASON)
                .isEmpty();
    }

    /** The text from the first {@code /**} to the first top-level type declaration. */
    static String classComment(List<String> lines) {
        StringBuilder comment = new StringBuilder();
        boolean in = false;
        for (String line : lines) {
            if (line.startsWith("/**")) {
                in = true;
            }
            if (line.matches("^(public |final |abstract |sealed )*(class|record|interface|enum) .*")) {
                break;
            }
            if (in) {
                comment.append(line.replaceFirst("^\\s*\\*", "").strip()).append(' ');
            }
        }
        return comment.toString();
    }

    static List<String> lines(Path p) {
        try {
            return Files.readAllLines(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
