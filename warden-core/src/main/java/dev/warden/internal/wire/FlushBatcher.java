package dev.warden.internal.wire;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;

/**
 * Sends the commands of several threads in one write to Redis when they arrive together, and each command at once
 * when it arrives alone. Lettuce flushes every command on its own: with sixteen threads locking at once, Redis and
 * the client each paid one system call and one wake-up per command, and on two cores that CPU, not the network,
 * bounded the lock rate.
 *
 * <p>A flush is held back only while more work is already queued on the connection's I/O thread: while it reads
 * replies (a reply's callback often sends the next command; all are flushed when the read completes), and while
 * other threads' writes wait in its task queue (the flush then runs as a task behind them, so it waits for no
 * timer and for nothing that has not already arrived). A lone command finds neither and is flushed at once, so an
 * uncontended lock pays no delay.
 *
 * <p>A write carries at most {@link #MAX_COMMANDS_PER_WRITE} commands. Redis answers a write's commands only after
 * running all of them, so one write of sixteen made the client wait for all sixteen and left Redis idle while the
 * client read the answers: with sixteen threads on their own keys, a third of both cores sat idle. Writes of four
 * let Redis run one while the client answers the last and sends the next, and still save three system calls in
 * four.
 *
 * <p>Installed first in each connection's pipeline, so it sees every flush and every read. It runs on the I/O
 * thread only and needs no synchronisation.
 */
final class FlushBatcher extends ChannelDuplexHandler {
    /** The most commands (flushes) one write carries. */
    static final int MAX_COMMANDS_PER_WRITE = 4;

    private final Runnable flushBehindQueue = this::flushBehindQueue;
    private ChannelHandlerContext context;
    private boolean reading;
    /** Flushes held back since the last write. */
    private int held;
    /** A flush behind the event loop's queue is scheduled. Confined to the channel's event loop, as every field. */
    private boolean scheduled;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        context = ctx;
    }

    private static boolean tasksQueued(EventExecutor executor) {
        return executor instanceof SingleThreadEventExecutor queue && queue.pendingTasks() > 0;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        reading = true;
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        endRead(ctx);
        ctx.fireChannelReadComplete();
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (held + 1 < MAX_COMMANDS_PER_WRITE && (reading || tasksQueued(ctx.executor()))) {
            held++;
            if (!reading && !scheduled) {
                scheduled = true;
                ctx.executor().execute(flushBehindQueue);
            }
        } else {
            held = 0;
            ctx.flush();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        endRead(ctx);
        ctx.fireExceptionCaught(cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        endRead(ctx);
        ctx.fireChannelInactive();
    }

    @Override
    public void disconnect(ChannelHandlerContext ctx, ChannelPromise promise) {
        flushPending(ctx);
        ctx.disconnect(promise);
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        flushPending(ctx);
        ctx.close(promise);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        flushPending(ctx);
    }

    /** The task queued behind other threads' writes; a read that began meanwhile flushes at its end instead. */
    private void flushBehindQueue() {
        scheduled = false;
        if (!reading) {
            flushPending(context);
        }
    }

    private void endRead(ChannelHandlerContext ctx) {
        reading = false;
        flushPending(ctx);
    }

    private void flushPending(ChannelHandlerContext ctx) {
        if (held > 0) {
            held = 0;
            ctx.flush();
        }
    }
}
