package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * One {@code <!-- section: name -->} part of the documentation (README.md or a page under docs/), up to the next
 * section marker or the end of its page: what a docs test checks.
 */
final class ReadmeSection {

    private ReadmeSection() {}

    static String of(String name) throws IOException {
        String marker = "<!-- section: " + name + " -->";
        for (Path page : pages()) {
            String text = Files.readString(page);
            int start = text.indexOf(marker);
            if (start >= 0) {
                int end = text.indexOf("<!-- section:", start + 1);
                return text.substring(start, end < 0 ? text.length() : end);
            }
        }
        assertThat(name)
                .as("documentation section " + name + " in README.md or docs/")
                .isNull();
        return "";
    }

    /** README.md and every page under docs/, in that order. */
    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> docs = Files.list(Path.of("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** All documentation text, README first. */
    static String all() throws IOException {
        StringBuilder b = new StringBuilder();
        for (Path page : pages()) {
            b.append(Files.readString(page)).append('\n');
        }
        return b.toString();
    }
}
