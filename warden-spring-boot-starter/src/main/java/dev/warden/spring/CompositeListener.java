package dev.warden.spring;

import dev.warden.LockListener;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Tells several listeners each event, in order; one that throws is logged and does not keep it from the rest. */
final class CompositeListener implements LockListener {
    private static final Logger LOG = LoggerFactory.getLogger(CompositeListener.class);

    private final List<LockListener> listeners;

    private CompositeListener(List<LockListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    /** @return the one listener, or one that tells each; null for none */
    static LockListener of(List<LockListener> listeners) {
        return switch (listeners.size()) {
            case 0 -> null;
            case 1 -> listeners.get(0);
            default -> new CompositeListener(listeners);
        };
    }

    private void each(Consumer<LockListener> call) {
        for (LockListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                LOG.warn("lock listener {} threw; the others are still told", listener, e);
            }
        }
    }

    @Override
    public void onAcquire(Acquire event) {
        each(l -> l.onAcquire(event));
    }

    @Override
    public void onWaiting(String lock) {
        each(l -> l.onWaiting(lock));
    }

    @Override
    public void onRelease(Release event) {
        each(l -> l.onRelease(event));
    }

    @Override
    public void onLost(Loss event) {
        each(l -> l.onLost(event));
    }

    @Override
    public void onRenewal(Renewal event) {
        each(l -> l.onRenewal(event));
    }

    @Override
    public String toString() {
        return "CompositeListener" + listeners;
    }
}
