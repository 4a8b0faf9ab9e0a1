package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's configuration table is the mapping's: every key of {@link TenureConfig} has a row with its default
 * ("unset" for optional keys), and the table names no key the mapping does not have.
 */
class ConfigurationReferenceTest {

    private static final Pattern ROW =
            Pattern.compile("^\\| `(tenure\\.[a-z0-9.-]+)` \\| ([^|]+) \\|", Pattern.MULTILINE);

    @Test
    void everyKeyIsDocumentedWithItsDefault() throws IOException {
        Map<String, String> keys = new LinkedHashMap<>();
        collect(TenureConfig.class.getAnnotation(ConfigMapping.class).prefix() + ".", TenureConfig.class, keys);
        assertThat(keys).as("keys found by reflection").hasSizeGreaterThan(20);

        Map<String, String> documented = new LinkedHashMap<>();
        Matcher m = ROW.matcher(ReadmeSection.of("configuration"));
        while (m.find()) {
            documented.put(m.group(1), m.group(2).trim());
        }
        keys.forEach((key, value) ->
                assertThat(documented).as("README configuration row for " + key).containsEntry(key, value));
        assertThat(documented.keySet())
                .as("README rows for keys the mapping does not have")
                .isSubsetOf(keys.keySet());
    }

    /**
     * SmallRye logs SRCFG01007 ("Duplicate value found") at every start for a key set twice in
     * application.properties, which reads like an error to a user (issue 16); each key is set once.
     */
    @Test
    void applicationPropertiesSetEachKeyOnce() throws IOException {
        java.util.List<String> keys = java.nio.file.Files.readAllLines(
                        java.nio.file.Path.of("src/main/resources/application.properties"))
                .stream()
                .map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#") && l.contains("="))
                .map(l -> l.substring(0, l.indexOf('=')).strip())
                .toList();
        assertThat(keys)
                .as("keys of application.properties")
                .hasSizeGreaterThan(20)
                .doesNotHaveDuplicates();
    }

    /** Leaf keys of a mapping interface, kebab-cased as SmallRye names them, with the default as documented. */
    private static void collect(String prefix, Class<?> group, Map<String, String> out) {
        Method[] methods = group.getMethods();
        Arrays.sort(methods, Comparator.comparing(Method::getName));
        for (Method method : methods) {
            String key = prefix + kebab(method.getName());
            Class<?> type = method.getReturnType();
            if (type.isInterface() && type.getPackageName().equals(TenureConfig.class.getPackageName())) {
                collect(key + ".", type, out);
                continue;
            }
            WithDefault d = method.getAnnotation(WithDefault.class);
            boolean optional = type == Optional.class || type == OptionalInt.class;
            assertThat(d != null || optional)
                    .as(key + " has a default or is optional")
                    .isTrue();
            out.put(key, d == null ? "unset" : "`" + d.value() + "`");
        }
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
