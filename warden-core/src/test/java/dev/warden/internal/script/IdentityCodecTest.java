package dev.warden.internal.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IdentityCodecTest {
    @Test
    void anyThreadNameSurvivesTheRoundTripAndNoRecordIsNoFields() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("name", "orders");
        fields.put("host", "host-a");
        fields.put("pid", "4211");
        fields.put("t:v", "two\nlines \\n not a break = and an equals\\");
        fields.put("t:w", "");
        String text = IdentityCodec.encode(fields);
        assertThat(text.lines()).hasSize(5);
        assertThat(IdentityCodec.decode(text)).containsExactlyEntriesOf(fields);
        assertThat(IdentityCodec.decode(null)).isEmpty();
        assertThat(IdentityCodec.decode("not a field\n=no name\nname=x")).containsExactly(Map.entry("name", "x"));
    }
}
