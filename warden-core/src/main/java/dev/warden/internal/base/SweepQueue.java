package dev.warden.internal.base;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * A queue that any thread appends to and one thread at a time drains from the head, kept in arrays of
 * {@value #CHUNK} slots. An append is one atomic increment and one store; the head moves along an array, and a
 * drained array is left to the garbage collector. A linked queue pays a compare-and-set and a node for each
 * element at both ends, which a profile showed for the command timer's tens of thousands of timeouts a second.
 *
 * <p>Elements come out in the order their slots were claimed. A slot claimed but not yet written reads as
 * empty: the drainer stops there and finds it written next time.
 */
public final class SweepQueue<E> {
    static final int CHUNK = 1024;

    private final AtomicReference<Chunk<E>> tail;
    /** The draining side: the chunk drained next. Guarded by the lock its callers drain under. */
    private Chunk<E> head;
    /** The next slot of {@link #head} to drain. Guarded by the lock its callers drain under. */
    private int index;

    public SweepQueue() {
        head = new Chunk<>();
        tail = new AtomicReference<>(head);
    }

    public void add(E element) {
        while (true) {
            Chunk<E> last = tail.get();
            int slot = last.claimed.getAndIncrement();
            if (slot < CHUNK) {
                last.slots.set(slot, element);
                return;
            }
            // Full: move on to the next chunk, making it if nobody has yet.
            Chunk<E> next = last.next.get();
            if (next == null) {
                Chunk<E> fresh = new Chunk<>();
                next = last.next.compareAndSet(null, fresh) ? fresh : last.next.get();
            }
            tail.compareAndSet(last, next);
        }
    }

    /** @return the element at the head, or null if none is there (yet); the drainer only */
    public E peek() {
        while (index == CHUNK) {
            Chunk<E> next = head.next.get();
            if (next == null) {
                return null;
            }
            head = next;
            index = 0;
        }
        return head.slots.get(index);
    }

    /**
     * Removes the element that {@link #peek} returned; the drainer only. The slot is not cleared: the whole chunk
     * goes to the garbage collector once the head has passed it.
     */
    public void remove() {
        index++;
    }

    /** Removes every element that is there, handing each to {@code action}; the drainer only. */
    public void drain(Consumer<? super E> action) {
        E element;
        while ((element = peek()) != null) {
            remove();
            action.accept(element);
        }
    }

    private static final class Chunk<E> {
        final AtomicReferenceArray<E> slots = new AtomicReferenceArray<>(CHUNK);
        final AtomicInteger claimed = new AtomicInteger();
        final AtomicReference<Chunk<E>> next = new AtomicReference<>();
    }
}
