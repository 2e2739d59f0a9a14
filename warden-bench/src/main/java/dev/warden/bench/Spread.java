package dev.warden.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * A figure over a run's interleaved rounds: the value reported (the median of the rounds; for a ratio against Warden,
 * the ratio of the medians), the least and the most of the rounds, and each round's value in the order run. A round
 * without a value (NaN: the contender uses no Redis, or ran no acquisition) is kept in {@link #rounds} and left out of
 * the others, which are NaN when no round has a value.
 *
 * @param value  the median of the rounds, or for a ratio the ratio of the medians
 * @param min    the least round
 * @param max    the most round
 * @param rounds each round's value, NaN where it has none
 */
record Spread(double value, double min, double max, List<Double> rounds) {
    Spread {
        rounds = List.copyOf(rounds);
    }

    /** @return the median, least and most of {@code rounds} */
    static Spread of(List<Double> rounds) {
        List<Double> values = new ArrayList<>();
        for (double round : rounds) {
            if (!Double.isNaN(round)) {
                values.add(round);
            }
        }
        if (values.isEmpty()) {
            return new Spread(Double.NaN, Double.NaN, Double.NaN, rounds);
        }
        values.sort(Double::compare);
        int n = values.size();
        double median = n % 2 == 1 ? values.get(n / 2) : (values.get(n / 2 - 1) + values.get(n / 2)) / 2;
        return new Spread(median, values.get(0), values.get(n - 1), rounds);
    }

    /**
     * @return the ratio of {@code of}'s value to {@code to}'s, with the least and most of the ratios of the rounds of
     *         the same index (the rounds are interleaved: round {@code i} of both ran in the same pass)
     */
    static Spread ratio(Spread of, Spread to) {
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < Math.min(of.rounds.size(), to.rounds.size()); i++) {
            ratios.add(of.rounds.get(i) / to.rounds.get(i));
        }
        return of(ratios).withValue(of.value / to.value);
    }

    /** @return this spread with another reported value, such as a figure derived from another's median */
    Spread withValue(double reported) {
        return new Spread(reported, min, max, rounds);
    }

    /** @return how many rounds have a value */
    int counted() {
        return (int) rounds.stream().filter(round -> !Double.isNaN(round)).count();
    }
}
