package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
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

    /**
     * The design document the first sessions worked from is not in the repository: a "see DESIGN, section n" in the
     * code or docs points nowhere. Say the thing, or point at a page that is here.
     */
    @Test
    void nothingPointsAtTheDesignDocumentOutsideTheRepository() throws IOException {
        Pattern dangling = Pattern.compile("DESIGN" + "(\\.md)?\\s*\u00a7|DESIGN" + "\\.md");
        List<String> found = new ArrayList<>();
        List<Path> roots = List.of(
                Path.of("src"),
                Path.of("docs"),
                Path.of("bin"),
                Path.of("README.md"),
                Path.of("pom.xml"),
                Path.of("Makefile"));
        for (Path root : roots) {
            try (java.util.stream.Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(Files::isRegularFile)
                        .filter(f -> f.toString()
                                .matches(".*\\.(java|md|properties|ya?ml|xml|json)$|.*/bin/[^.]*$|.*Makefile$"))
                        .toList()) {
                    List<String> lines = Files.readAllLines(f);
                    for (int i = 0; i < lines.size(); i++) {
                        if (dangling.matcher(lines.get(i)).find()) {
                            found.add(f + ":" + (i + 1));
                        }
                    }
                }
            }
        }
        assertThat(found).as("references to a document not in the repository").isEmpty();
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
                        .toLowerCase(Locale.ROOT)
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
