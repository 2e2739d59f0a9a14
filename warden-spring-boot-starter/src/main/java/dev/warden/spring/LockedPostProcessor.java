package dev.warden.spring;

import dev.warden.LockClient;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;

/**
 * Proxies the beans that have {@link Locked} methods. Its advice goes before any other on the same bean (such as
 * {@code @Transactional}'s), so the lock is held around the whole call, the transaction included. Closed with the
 * context, it closes the fair client that {@code @Locked(fair = true)} methods may have created.
 */
public class LockedPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor implements DisposableBean {
    private static final long serialVersionUID = 1L;
    private transient LockedInterceptor interceptor;

    /** Proxies beans with {@link Locked} methods, once the bean factory is known. */
    public LockedPostProcessor() {
        setBeforeExistingAdvisors(true);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        if (!(beanFactory instanceof ConfigurableBeanFactory configurable)) {
            throw new IllegalStateException("@Locked needs a ConfigurableBeanFactory: " + beanFactory);
        }
        interceptor = new LockedInterceptor(beanFactory.getBeanProvider(LockClient.class),
                beanFactory.getBeanProvider(WardenAutoConfiguration.ClientWrapper.class), beanFactory,
                new EmbeddedValueResolver(configurable));
        this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, Locked.class, true),
                interceptor);
    }

    /** Closes the client that {@code @Locked(fair = true)} methods created, if they did. */
    @Override
    public void destroy() {
        if (interceptor != null) {
            interceptor.close();
        }
    }
}
