package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** One {@code <!-- section: name -->} part of the README, up to the next section marker: what a docs test checks. */
final class ReadmeSection {

    private ReadmeSection() {
    }

    static String of(String name) throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        int start = readme.indexOf("<!-- section: " + name + " -->");
        assertThat(start).as("README section " + name).isNotNegative();
        int end = readme.indexOf("<!-- section:", start + 1);
        return readme.substring(start, end < 0 ? readme.length() : end);
    }
}
