package dev.warden.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.redisserver.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Three instances of the example application against one Redis, as a deployment would run them. */
@Timeout(180)
class ThreeInstancesTest {
    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();
    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stopInstances() {
        instances.forEach(ConfigurableApplicationContext::close);
    }

    private void startThree(String... properties) {
        for (int i = 0; i < 3; i++) {
            List<String> all = new ArrayList<>(List.of("server.port=0", "warden.redis-uri=" + REDIS.server().uri(),
                    "warden.client-name=instance-" + i));
            all.addAll(List.of(properties));
            // As command-line arguments, which win over application.properties.
            instances.add(new SpringApplicationBuilder(ReportsApplication.class)
                    .run(all.stream().map(p -> "--" + p).toArray(String[]::new)));
        }
    }

    @Test
    void theJobRunsOncePerPeriodAcrossInstancesAndTheMetricsCountIt() throws Exception {
        startThree("reports.period=PT1S", "reports.hold-at-least=PT0.9S");
        // Every instance triggers the job every second; without the lock, three runs a second.
        TimeUnit.SECONDS.sleep(4);
        List<long[]> runs = new ArrayList<>();
        for (ConfigurableApplicationContext instance : instances) {
            runs.addAll(instance.getBean(HourlyReport.class).runs());
        }
        runs.sort(Comparator.comparingLong(run -> run[0]));
        assertThat(runs).hasSizeGreaterThanOrEqualTo(4);
        for (int i = 1; i < runs.size(); i++) {
            // Each run holds the lock 0.9 s from when it took it: no two runs closer, whatever the instances.
            assertThat(TimeUnit.NANOSECONDS.toMillis(runs.get(i)[0] - runs.get(i - 1)[0])).as("gap before run " + i)
                    .isGreaterThanOrEqualTo(850);
            assertThat(runs.get(i)[1]).as("fence of run " + i).isGreaterThan(runs.get(i - 1)[1]);
        }
        // The metrics count every run, and the triggers that found the lock held.
        long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (total("acquired") < runs.size() && System.nanoTime() < bound) {
            Thread.onSpinWait();
        }
        assertThat(total("acquired")).isGreaterThanOrEqualTo(runs.size());
        assertThat(total("not_acquired")).isPositive();

        HttpResponse<String> metric = get(instances.get(0), "/actuator/metrics/warden.lock.acquire");
        assertThat(metric.statusCode()).isEqualTo(200);
        assertThat(metric.body()).contains("\"name\":\"warden.lock.acquire\"").contains("reports:hourly");
        HttpResponse<String> health = get(instances.get(1), "/actuator/health");
        assertThat(health.body()).contains("\"warden\":{").contains("leasesLostRecently");
    }

    private long total(String outcome) {
        long sum = 0;
        for (ConfigurableApplicationContext instance : instances) {
            sum += count(instance.getBean(MeterRegistry.class), outcome);
        }
        return sum;
    }

    @Test
    void anOrderShipsOnceWhicheverInstancesTheRequestsReach() throws Exception {
        startThree("reports.period=PT1H");
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            calls.add(http.sendAsync(HttpRequest.newBuilder(uri(instances.get(i % 3), "/orders/7/ship"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()));
        }
        List<String> bodies = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            HttpResponse<String> response = call.get(60, TimeUnit.SECONDS);
            assertThat(response.statusCode()).isEqualTo(200);
            bodies.add(response.body());
        }
        assertThat(bodies).filteredOn("shipped"::equals).hasSize(1);
        assertThat(bodies).filteredOn("already shipped"::equals).hasSize(29);
        assertThat(instances.get(0).getBean(OrdersController.Shipments.class).timesShipped(7)).isEqualTo(1);
    }

    private static long count(MeterRegistry meters, String outcome) {
        return meters.find("warden.lock.acquire").tag("lock", "reports:hourly").tag("outcome", outcome).timers()
                .stream().mapToLong(Timer::count).sum();
    }

    private HttpResponse<String> get(ConfigurableApplicationContext instance, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(instance, path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(ConfigurableApplicationContext instance, String path) {
        return URI.create("http://127.0.0.1:" + instance.getEnvironment().getProperty("local.server.port") + path);
    }
}
