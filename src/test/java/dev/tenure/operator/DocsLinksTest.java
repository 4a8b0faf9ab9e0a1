package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Every relative link in README.md and docs/ names a file of the repository, and every #anchor a heading there. */
class DocsLinksTest {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    @Test
    void everyRelativeLinkAndAnchorResolves() throws IOException {
        assertThat(broken(ReadmeSection.pages())).isEmpty();
    }

    @Test
    void aLinkToAMissingPageOrHeadingIsReported(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path page = dir.resolve("page.md");
        Files.writeString(page, "# Title\n\n[ok](#title) [gone](#nowhere) [file](missing.md) [self](page.md#title)\n");

        assertThat(broken(List.of(page))).containsExactlyInAnyOrder(page + ": #nowhere", page + ": missing.md");
    }

    static List<String> broken(List<Path> pages) throws IOException {
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            for (String target : links(page)) {
                if (target.matches("^[a-z]+:.*")) {
                    continue; // https:, mailto:
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty()
                        ? page
                        : page.toAbsolutePath().getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(page + ": " + target);
                } else if (hash >= 0
                        && !anchors.computeIfAbsent(resolved, DocsLinksTest::headings)
                                .contains(target.substring(hash + 1))) {
                    broken.add(page + ": " + target);
                }
            }
        }
        return broken;
    }

    private static List<String> links(Path page) throws IOException {
        List<String> out = new ArrayList<>();
        boolean code = false;
        for (String line : Files.readAllLines(page)) {
            if (line.startsWith("```")) {
                code = !code;
            }
            Matcher m = LINK.matcher(line);
            while (!code && m.find()) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    /** GitHub's anchors: lowercase, punctuation dropped but '-' and '_', spaces to '-', repeats numbered. */
    private static Set<String> headings(Path page) {
        Set<String> out = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean code = false;
        try {
            for (String line : Files.readAllLines(page)) {
                if (line.startsWith("```")) {
                    code = !code;
                }
                if (code || !line.matches("^#+ .*")) {
                    continue;
                }
                String a = line.replaceFirst("^#+\\s*", "")
                        .strip()
                        .toLowerCase()
                        .replaceAll("[^\\p{L}\\p{N} _-]", "")
                        .replace(' ', '-');
                int n = seen.merge(a, 1, Integer::sum);
                out.add(n == 1 ? a : a + "-" + (n - 1));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out;
    }
}
