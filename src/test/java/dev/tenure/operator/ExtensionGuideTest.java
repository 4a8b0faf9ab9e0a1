package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/development.md's "How to extend" page names, for each of its three paths, the files a change touches: every
 * file it names (in backquotes, from the repository root) exists and every link resolves, so the page cannot drift
 * away from the code.
 */
class ExtensionGuideTest {

    private static final Pattern NAMED_FILE = Pattern.compile("`((?:src|docs|bin|deploy|olm-bundle)/[^`\\s]+)`");

    @Test
    void everyFileTheGuideNamesExistsAndEveryLinkResolves() throws IOException {
        String guide = ReadmeSection.of("how-to-extend");

        assertThat(guide)
                .contains(
                        "### A new drain rule behaviour",
                        "### A new admission check",
                        "### A new maintenance step",
                        "### A new coordinated election strategy",
                        "### A new metric");
        assertThat(named(guide)).as("files the guide names").hasSizeGreaterThan(20);
        assertThat(missing(guide, Path.of(".")))
                .as("files the guide names that do not exist")
                .isEmpty();
        assertThat(DocsLinksTest.broken(List.of(Path.of("docs/development.md"))))
                .as("links of docs/development.md")
                .isEmpty();
    }

    @Test
    void aFileThatIsGoneIsReported(@org.junit.jupiter.api.io.TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("src/main"));
        Files.writeString(root.resolve("src/main/Here.java"), "");

        assertThat(missing("Edit `src/main/Here.java` and `src/main/Gone.java`, not `MaintenanceMachine`.", root))
                .containsExactly("src/main/Gone.java");
    }

    static List<String> named(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = NAMED_FILE.matcher(text);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    static List<String> missing(String text, Path root) {
        return named(text).stream().filter(f -> !Files.exists(root.resolve(f))).toList();
    }
}
