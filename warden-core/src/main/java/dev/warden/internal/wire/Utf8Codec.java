package dev.warden.internal.wire;

import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.codec.ToByteBufEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;

/**
 * Strings as UTF-8, written straight into the command's buffer. Lettuce's {@link StringCodec#UTF8} sizes a string
 * by its most bytes, so Lettuce first encodes every key and argument into a temporary pooled buffer and copies it
 * over; a profile of many small scripts put a tenth of the I/O thread in those buffers. Here the size is the exact
 * UTF-8 length (one pass over the characters), so Lettuce writes the length prefix and then the string in place.
 */
public final class Utf8Codec implements RedisCodec<String, String>, ToByteBufEncoder<String, String> {
    /** The one instance: it keeps no state. */
    public static final Utf8Codec INSTANCE = new Utf8Codec();

    private Utf8Codec() {
    }

    @Override
    public boolean isEstimateExact() {
        return true;
    }

    /** @return the exact UTF-8 length, counted as {@link ByteBufUtil#writeUtf8} writes it */
    @Override
    public int estimateSize(Object keyOrValue) {
        return keyOrValue instanceof CharSequence text ? ByteBufUtil.utf8Bytes(text) : 0;
    }

    @Override
    public void encodeKey(String key, ByteBuf target) {
        write(key, target);
    }

    @Override
    public void encodeValue(String value, ByteBuf target) {
        write(value, target);
    }

    @Override
    public ByteBuffer encodeKey(String key) {
        return StringCodec.UTF8.encodeKey(key);
    }

    @Override
    public ByteBuffer encodeValue(String value) {
        return StringCodec.UTF8.encodeValue(value);
    }

    @Override
    public String decodeKey(ByteBuffer bytes) {
        return StringCodec.UTF8.decodeKey(bytes);
    }

    @Override
    public String decodeValue(ByteBuffer bytes) {
        return StringCodec.UTF8.decodeValue(bytes);
    }

    private static void write(String text, ByteBuf target) {
        if (text != null) {
            ByteBufUtil.writeUtf8(target, text);
        }
    }
}
