package org.sluice.edge.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.sluice.edge.settings.Problems;
import org.sluice.edge.settings.Values;

/**
 * Reads a Sluice configuration: YAML, then {@code ${VAR}} / {@code ${VAR:-default}}
 * substitution in string values, then a strict walk that reports unknown keys, wrong
 * types, bad values and broken cross-section rules, every one with its key path and
 * value. Nothing is half-loaded: either a whole valid {@link SluiceConfig} or a
 * {@link ConfigException} listing every problem.
 *
 * <p>For the CLI: {@code serve} uses {@link #load(Path)} or {@link #loadDefault()};
 * {@code check-config} uses {@link #check(Path)}.
 */
public final class ConfigLoader {

    /** The embedded configuration {@code sluice serve} runs without {@code --config}. */
    public static final String DEFAULT_RESOURCE = "org/sluice/edge/config/default.yaml";

    private static final YAMLMapper YAML = YAMLMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private ConfigLoader() {
    }

    /** Loads {@code file} with the process environment. */
    public static SluiceConfig load(Path file) {
        return load(file, System.getenv());
    }

    /** Loads {@code file}, substituting from {@code env}. */
    public static SluiceConfig load(Path file, Map<String, String> env) {
        return load(file, env, UnaryOperator.identity());
    }

    /**
     * Loads {@code file} with {@code edit} applied to its tree (maps, lists and scalars, after
     * substitution) before it is bound: for keys the command line adds ({@code serve
     * --forward-to}), which so meet every rule and message that keys in a file meet.
     */
    public static SluiceConfig load(Path file, Map<String, String> env, UnaryOperator<Object> edit) {
        return parse(read(file), env, file.toString(), edit);
    }

    /** The embedded default (see {@link #DEFAULT_RESOURCE}), with the process environment. */
    public static SluiceConfig loadDefault() {
        return loadDefault(System.getenv());
    }

    public static SluiceConfig loadDefault(Map<String, String> env) {
        return loadDefault(env, UnaryOperator.identity());
    }

    /** The embedded default with {@code edit} applied to its tree, as {@link #load(Path, Map, UnaryOperator)}. */
    public static SluiceConfig loadDefault(Map<String, String> env, UnaryOperator<Object> edit) {
        return parse(defaultYaml(), env, "the embedded default configuration", edit);
    }

    /**
     * A string scalar of a tree handed to an edit ({@link #load(Path, Map, UnaryOperator)}) as
     * text, after substitution; null for anything else (a number, a map, a list).
     */
    public static String text(Object scalar) {
        return Values.string(scalar);
    }

    /** The embedded default's YAML text, e.g. for {@code sluice serve --print-default}. */
    public static String defaultYaml() {
        try (InputStream in = ConfigLoader.class.getClassLoader().getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + DEFAULT_RESOURCE);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read resource " + DEFAULT_RESOURCE, e);
        }
    }

    /** Every problem in {@code file} (empty when it is valid), with the process environment. */
    public static List<String> check(Path file) {
        return check(file, System.getenv());
    }

    public static List<String> check(Path file, Map<String, String> env) {
        try {
            load(file, env);
            return List.of();
        } catch (ConfigException e) {
            return e.errors();
        }
    }

    /**
     * Parses YAML text.
     *
     * @param origin how to name the text in a message about unreadable YAML (a file name)
     * @throws ConfigException listing every problem
     */
    public static SluiceConfig parse(String yaml, Map<String, String> env, String origin) {
        return parse(yaml, env, origin, UnaryOperator.identity());
    }

    private static SluiceConfig parse(String yaml, Map<String, String> env, String origin, UnaryOperator<Object> edit) {
        JsonNode root;
        try {
            root = YAML.readTree(yaml);
        } catch (JsonProcessingException e) {
            throw new ConfigException(origin + " is not valid YAML: " + describe(e));
        }
        Problems problems = new Problems();
        Object tree = edit.apply(new EnvSubstitution(env, problems).convert(root, ""));
        SluiceConfig config = new ConfigBinder(problems).bind(tree);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems.list());
        }
        return config;
    }

    /** Parses YAML text with no environment: every {@code ${VAR}} without a default is an error. Handy in tests. */
    public static SluiceConfig parse(String yaml) {
        return parse(yaml, Map.of(), "the configuration");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new ConfigException("config file " + file + " does not exist");
        } catch (java.nio.charset.MalformedInputException e) {
            throw new ConfigException("config file " + file + " is not UTF-8 text");
        } catch (IOException e) {
            throw new ConfigException("config file " + file + " cannot be read: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()));
        }
    }

    private static String describe(JsonProcessingException e) {
        String message = e.getOriginalMessage();
        int newline = message == null ? -1 : message.indexOf('\n');
        if (newline >= 0) {
            message = message.substring(0, newline);
        }
        JsonLocation at = e.getLocation();
        return (message == null ? "syntax error" : message.trim())
                + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")");
    }
}
