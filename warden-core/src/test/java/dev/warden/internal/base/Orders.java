package dev.warden.internal.base;

import java.util.ArrayList;
import java.util.List;

/** The event orders of the interleaving tests, and their runs: each sequence settled and racing its replies. */
public final class Orders {
    /** One run of a sequence: what went wrong, or null. */
    @FunctionalInterface
    public interface Run<E> {
        String run(List<E> sequence, String name, boolean settled) throws Exception;
    }

    private Orders() {
    }

    /** @return every sequence of one, two and three of {@code events}, repeats included, in every order */
    @SafeVarargs
    public static <E> List<List<E>> upToThree(E... events) {
        List<List<E>> sequences = new ArrayList<>();
        for (E a : events) {
            sequences.add(List.of(a));
            for (E b : events) {
                sequences.add(List.of(a, b));
                for (E c : events) {
                    sequences.add(List.of(a, b, c));
                }
            }
        }
        return sequences;
    }

    /**
     * Runs each sequence twice: with each event's requests answered before the next event, and with the next event
     * racing them; runs are named {@code prefix} and a number.
     *
     * @return what went wrong, per sequence that broke
     */
    public static <E> List<String> broken(List<List<E>> sequences, String prefix, Run<E> run) throws Exception {
        List<String> broken = new ArrayList<>();
        int count = 0;
        for (List<E> sequence : sequences) {
            for (boolean settled : new boolean[] {true, false}) {
                String problem = run.run(sequence, prefix + count++, settled);
                if (problem != null) {
                    broken.add(sequence + (settled ? "" : " racing replies") + ": " + problem);
                }
            }
        }
        return broken;
    }
}
