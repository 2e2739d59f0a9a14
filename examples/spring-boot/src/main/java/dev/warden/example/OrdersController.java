package dev.warden.example;

import dev.warden.spring.LockNotAcquiredException;
import dev.warden.spring.Locked;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** Ships an order at most once, whichever instance the request reaches and however often it is retried. */
@RestController
public class OrdersController {
    private final Shipments shipments;

    OrdersController(Shipments shipments) {
        this.shipments = shipments;
    }

    /** @return "shipped" the first time, "already shipped" after */
    @PostMapping("/orders/{id}/ship")
    @Locked(value = "orders:#{#id}", waitFor = "2s")
    public String ship(@PathVariable("id") long id) {
        return shipments.shipOnce(id) ? "shipped" : "already shipped";
    }

    /** Another request held the order's lock for longer than two seconds. */
    @ExceptionHandler(LockNotAcquiredException.class)
    @ResponseStatus(HttpStatus.CONFLICT)
    public String busy(LockNotAcquiredException e) {
        return e.getMessage();
    }

    /**
     * Where shipments are recorded: a database shared by the instances in an application; a static map here, shared
     * by the instances that the example's test runs in one JVM.
     */
    @Component
    public static class Shipments {
        private static final Map<Long, AtomicInteger> SHIPPED = new ConcurrentHashMap<>();

        /** Check, then act, with a courier's call between: safe only under the order's lock. */
        boolean shipOnce(long id) {
            if (SHIPPED.containsKey(id)) {
                return false;
            }
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5);
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            SHIPPED.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            return true;
        }

        /** @return how many times the order was shipped: 1 if the lock did its job */
        public int timesShipped(long id) {
            AtomicInteger times = SHIPPED.get(id);
            return times == null ? 0 : times.get();
        }
    }
}
