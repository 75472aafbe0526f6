package org.sluice.edge.settings;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * A file a config value names: the path, and why the file cannot be read. Every key that
 * names a file ({@code http.tls.cert_file}, {@code node.data_dir}, a destination's
 * {@code ca_file}, {@code credentials_file}, {@code signing.ed25519_key_file}) reads it
 * through here, so that a value that is no path (blank, or holding a NUL character) is a
 * problem of the key and never an exception out of the loader, and every message gives
 * the same reason for a file it cannot read. Each reader writes its own message around them.
 */
public final class FilePaths {

    private FilePaths() {
    }

    /** The path {@code raw} names; null when it is not a string, is blank, or is no path on this system. */
    public static Path of(Object raw) {
        String text = Values.string(raw);
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return Path.of(text);
        } catch (InvalidPathException e) {
            return null;
        }
    }

    /**
     * Why {@code p} cannot be read as a file, for a message: {@code no such file},
     * {@code not a regular file} or {@code not readable by this process}; null when it can.
     */
    public static String unreadable(Path p) {
        if (!Files.exists(p)) {
            return "no such file";
        }
        if (!Files.isRegularFile(p)) {
            return "not a regular file";
        }
        if (!Files.isReadable(p)) {
            return "not readable by this process";
        }
        return null;
    }
}
