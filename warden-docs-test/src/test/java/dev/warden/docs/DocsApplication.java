package dev.warden.docs;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * The Spring Boot application that runs a snippet of bean members: Warden's starter configures its {@code LockClient}
 * and {@code @Locked}, and the snippet's scaffold class is registered as a bean of it.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class DocsApplication {
}
