package dev.warden.cli;

import picocli.CommandLine.Option;

/**
 * {@code --cluster} and {@code --quorum}: what {@code --redis} names, for the commands that take locks or read them.
 */
final class TopologyOptions {
    @Option(names = "--cluster", description = "--redis names a Redis Cluster: one or more seed URIs, comma-separated")
    boolean cluster;

    @Option(names = "--quorum", description = "--redis names three or more independent servers, comma-separated, "
            + "for a quorum lock (Redlock)")
    boolean quorum;
}
