package dev.warden.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link FlushBatcher} in Netty pipelines of its own: an embedded channel for reads, and an in-process channel on a
 * real event loop, whose task queue the test fills by holding the loop, for writes from other threads.
 */
@Timeout(30)
class FlushBatcherTest {
    private final AtomicInteger flushes = new AtomicInteger();

    /** Goes between the batcher and the transport: counts the flushes that get through. */
    private final class FlushCounter extends ChannelOutboundHandlerAdapter {
        @Override
        public void flush(ChannelHandlerContext ctx) {
            flushes.incrementAndGet();
            ctx.flush();
        }
    }

    private EmbeddedChannel embedded(ChannelInboundHandlerAdapter replies) {
        EmbeddedChannel channel = new EmbeddedChannel(replies);
        channel.pipeline().addFirst(new FlushBatcher());
        channel.pipeline().addFirst(new FlushCounter());
        return channel;
    }

    /** Answers each reply by sending a command, as a lock's callbacks do. */
    private static ChannelInboundHandlerAdapter answering() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object reply) {
                ctx.writeAndFlush("after-" + reply);
            }
        };
    }

    @Test
    void commandsSentWhileReadingRepliesGoInOneFlushWhenTheReadCompletes() {
        EmbeddedChannel channel = embedded(answering());
        channel.pipeline().fireChannelRead("a");
        channel.pipeline().fireChannelRead("b");
        assertNull(channel.readOutbound());
        assertEquals(0, flushes.get());

        channel.pipeline().fireChannelReadComplete();
        assertEquals("after-a", channel.readOutbound());
        assertEquals("after-b", channel.readOutbound());
        assertEquals(1, flushes.get());

        channel.writeAndFlush("later");
        assertEquals("later", channel.readOutbound());
        assertEquals(2, flushes.get());
    }

    @Test
    void repliesThatSendManyCommandsSendThemFourToAWrite() {
        EmbeddedChannel channel = embedded(answering());
        for (int i = 0; i < 9; i++) {
            channel.pipeline().fireChannelRead(i);
        }
        assertEquals(2, flushes.get());
        for (int i = 0; i < 8; i++) {
            assertEquals("after-" + i, channel.readOutbound());
        }
        assertNull(channel.readOutbound());

        channel.pipeline().fireChannelReadComplete();
        assertEquals("after-8", channel.readOutbound());
        assertEquals(3, flushes.get());
    }

    @Test
    void readFailureFromTheSocketFlushesAndStopsHoldingBack() {
        AtomicInteger failures = new AtomicInteger();
        EmbeddedChannel channel = embedded(answering());
        channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                failures.incrementAndGet();
            }
        });
        channel.pipeline().fireChannelRead("a");
        assertNull(channel.readOutbound());
        channel.pipeline().fireExceptionCaught(new IOException("connection reset"));
        assertEquals(1, failures.get());
        assertEquals("after-a", channel.readOutbound());

        channel.writeAndFlush("next");
        assertEquals("next", channel.readOutbound());
    }

    @Test
    void connectionThatDropsDuringAReadFlushesWhatTheReadSent() {
        EmbeddedChannel channel = embedded(answering());
        channel.pipeline().fireChannelRead("a");
        channel.pipeline().fireChannelInactive();
        assertEquals("after-a", channel.readOutbound());
    }

    @Test
    void loneCommandFromAnotherThreadIsFlushedAtOnce() throws Exception {
        try (Pair pair = new Pair()) {
            assertTrue(pair.client.writeAndFlush("SET").await(5, TimeUnit.SECONDS));
            assertEquals("SET", pair.received.poll(5, TimeUnit.SECONDS));
            assertEquals(1, flushes.get());
        }
    }

    @Test
    void commandsOfThreadsThatArriveTogetherGoInOneFlushBehindThem() throws Exception {
        try (Pair pair = new Pair()) {
            List<String> commands = List.of("one", "two", "three");
            pair.writeTogether(commands);
            pair.assertReceived(commands);
            assertEquals(1, flushes.get());

            assertTrue(pair.client.writeAndFlush("four").await(5, TimeUnit.SECONDS));
            assertEquals("four", pair.received.poll(5, TimeUnit.SECONDS));
            assertEquals(2, flushes.get());
        }
    }

    @Test
    void manyQueuedCommandsGoOutFourToAWrite() throws Exception {
        try (Pair pair = new Pair()) {
            List<String> commands = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                commands.add("command-" + i);
            }
            pair.writeTogether(commands);
            pair.assertReceived(commands);
            assertEquals(2, flushes.get());
        }
    }

    @Test
    void commandHeldBackIsFlushedBeforeTheConnectionCloses() throws Exception {
        try (Pair pair = new Pair()) {
            CountDownLatch hold = pair.holdLoop();
            ChannelFuture write = pair.client.writeAndFlush("last");
            ChannelFuture close = pair.client.close();
            hold.countDown();
            assertTrue(close.await(5, TimeUnit.SECONDS));
            assertTrue(write.await(5, TimeUnit.SECONDS));
            assertTrue(write.isSuccess(), () -> "write failed: " + write.cause());
        }
    }

    /** A client channel with the batcher, connected in-process to a server that records what it receives. */
    private final class Pair implements AutoCloseable {
        final EventLoopGroup clientLoop = new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());
        final EventLoopGroup serverLoop = new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());
        final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        final Channel server;
        final Channel client;

        Pair() throws InterruptedException {
            LocalAddress address = new LocalAddress("flush-batcher-" + System.nanoTime());
            server = new ServerBootstrap().group(serverLoop).channel(LocalServerChannel.class)
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            received.add(msg);
                        }
                    })
                    .bind(address).sync().channel();
            client = new Bootstrap().group(clientLoop).channel(LocalChannel.class)
                    .handler(new ChannelInitializer<LocalChannel>() {
                        @Override
                        protected void initChannel(LocalChannel channel) {
                            channel.pipeline().addFirst(new FlushBatcher());
                            channel.pipeline().addFirst(new FlushCounter());
                        }
                    })
                    .connect(address).sync().channel();
        }

        /** Writes the commands from this thread while the client's event loop is held; waits until all succeed. */
        void writeTogether(List<String> commands) throws InterruptedException {
            CountDownLatch hold = holdLoop();
            List<ChannelFuture> writes = new ArrayList<>();
            for (String command : commands) {
                writes.add(client.writeAndFlush(command));
            }
            hold.countDown();
            for (ChannelFuture write : writes) {
                assertTrue(write.await(5, TimeUnit.SECONDS));
                assertTrue(write.isSuccess());
            }
        }

        /** Asserts that the server received these commands next, in this order. */
        void assertReceived(List<String> commands) throws InterruptedException {
            for (String command : commands) {
                assertEquals(command, received.poll(5, TimeUnit.SECONDS));
            }
        }

        /** Holds the client's event loop until the latch is counted down, so that its writes queue up. */
        CountDownLatch holdLoop() throws InterruptedException {
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            clientLoop.execute(() -> {
                held.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(held.await(5, TimeUnit.SECONDS));
            return release;
        }

        @Override
        public void close() {
            client.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            clientLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            serverLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }
}
