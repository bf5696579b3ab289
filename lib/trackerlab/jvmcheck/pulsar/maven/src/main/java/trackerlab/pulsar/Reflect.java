package trackerlab.pulsar;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * Reflection helpers, so that one harness source compiles against every release line: the
 * trackers' constructors take a different dispatcher type per line (2.x-3.x
 * PersistentDispatcherMultipleConsumers, 4.x AbstractPersistentDispatcherMultipleConsumers),
 * NegativeAcksTracker and PendingAcksMap are package-private, and fields come and go.
 */
final class Reflect {
    private Reflect() {
    }

    /** The class, or null when this release does not have it. */
    static Class<?> optionalClass(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    /** The field declared by the class or one of its superclasses, or null. */
    static Field findField(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f;
            } catch (NoSuchFieldException e) {
                // try the superclass
            }
        }
        return null;
    }

    static Object get(Object target, String name) throws IllegalAccessException {
        Field f = findField(target.getClass(), name);
        if (f == null) {
            throw new IllegalStateException(target.getClass().getName() + " has no field " + name);
        }
        return f.get(target);
    }

    static void set(Object target, String name, Object value) throws IllegalAccessException {
        Field f = findField(target.getClass(), name);
        if (f == null) {
            throw new IllegalStateException(target.getClass().getName() + " has no field " + name);
        }
        f.set(target, value);
    }

    /** The first of these fields the object has: its name, or null. */
    static String firstField(Object target, String... names) {
        for (String name : names) {
            if (findField(target.getClass(), name) != null) {
                return name;
            }
        }
        return null;
    }

    /** A constructor with exactly these parameter types by position (declared, any access). */
    static Constructor<?> constructor(Class<?> type, Class<?>... parameterTypes) {
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            Class<?>[] params = c.getParameterTypes();
            if (params.length != parameterTypes.length) {
                continue;
            }
            boolean ok = true;
            for (int i = 0; i < params.length && ok; i++) {
                ok = parameterTypes[i] == null || params[i].isAssignableFrom(parameterTypes[i])
                        || params[i] == parameterTypes[i];
            }
            if (ok) {
                c.setAccessible(true);
                return c;
            }
        }
        return null;
    }

    /** The declared constructor whose first parameter is assignable from {@code first} and has
     * {@code count} parameters, or null. */
    static Constructor<?> constructorStartingWith(Class<?> type, int count, Class<?> first) {
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            Class<?>[] params = c.getParameterTypes();
            if (params.length == count && params[0].isAssignableFrom(first)) {
                c.setAccessible(true);
                return c;
            }
        }
        return null;
    }

    /** A public or declared method by name and parameter count, searching superclasses. */
    static Method method(Class<?> type, String name, int count) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(name) && m.getParameterCount() == count) {
                    m.setAccessible(true);
                    return m;
                }
            }
        }
        return null;
    }
}
