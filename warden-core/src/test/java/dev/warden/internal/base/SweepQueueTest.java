package dev.warden.internal.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SweepQueueTest {
    private final SweepQueue<Integer> queue = new SweepQueue<>();

    @Test
    void elementsComeOutInOrderAcrossManyChunks() {
        int count = SweepQueue.CHUNK * 3 + 7;
        for (int i = 0; i < count; i++) {
            queue.add(i);
        }
        List<Integer> out = new ArrayList<>();
        queue.drain(out::add);
        assertEquals(count, out.size());
        for (int i = 0; i < count; i++) {
            assertEquals(i, out.get(i));
        }
        assertNull(queue.peek());
    }

    @Test
    void peekLeavesTheHeadUntilRemovedAndLaterAppendsAreFound() {
        assertNull(queue.peek());
        queue.add(1);
        assertEquals(1, queue.peek());
        assertEquals(1, queue.peek());
        queue.remove();
        assertNull(queue.peek());
        for (int i = 2; i < SweepQueue.CHUNK + 2; i++) {
            queue.add(i);
            assertEquals(i, queue.peek());
            queue.remove();
        }
        assertNull(queue.peek());
        queue.add(-1);
        assertEquals(-1, queue.peek());
    }

    @Test
    void concurrentAppendsAreAllDrainedOnceInEachThreadsOrder() throws InterruptedException {
        int threads = 4;
        int each = SweepQueue.CHUNK * 5;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int base = t * each;
            Thread writer = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    queue.add(base + i);
                }
            });
            writer.start();
            writers.add(writer);
        }
        start.countDown();
        int[] next = new int[threads];
        int seen = 0;
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (seen < threads * each && System.nanoTime() - giveUp < 0) {
            Integer element = queue.peek();
            if (element == null) {
                Thread.onSpinWait();
                continue;
            }
            queue.remove();
            int thread = element / each;
            assertEquals(thread * each + next[thread], element, "thread " + thread + "'s elements out of order");
            next[thread]++;
            seen++;
        }
        for (Thread writer : writers) {
            writer.join(TimeUnit.SECONDS.toMillis(20));
        }
        assertEquals(threads * each, seen);
        assertNull(queue.peek());
        for (int n : next) {
            assertTrue(n == each);
        }
    }
}
