package trackerlab.probe;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Exact deep heap size of an object graph, the quantity JOL's GraphLayout.totalSize reports:
 * the sum of Instrumentation.getObjectSize over every object reachable through non-static
 * reference fields and Object[] elements, each object counted once. Loaded with -javaagent.
 */
public final class SizeAgent {
  private static volatile Instrumentation inst;
  private static final Map<Class<?>, Field[]> FIELDS = new HashMap<>();

  private SizeAgent() {}

  public static void premain(String args, Instrumentation instrumentation) {
    inst = instrumentation;
  }

  public static boolean available() {
    return inst != null;
  }

  /** Shallow size of one object (header, fields, padding). */
  public static long shallowSize(Object o) {
    return inst.getObjectSize(o);
  }

  /** Deep size: iterative DFS over an identity set, so cycles and sharing are counted once. */
  public static long deepSize(Object root) {
    if (inst == null) {
      throw new IllegalStateException("SizeAgent not loaded: start the JVM with -javaagent");
    }
    IdentityHashMap<Object, Boolean> seen = new IdentityHashMap<>();
    ArrayDeque<Object> stack = new ArrayDeque<>();
    long total = 0;
    if (root != null) {
      stack.push(root);
    }
    while (!stack.isEmpty()) {
      Object o = stack.pop();
      if (seen.put(o, Boolean.TRUE) != null) {
        continue;
      }
      total += inst.getObjectSize(o);
      Class<?> c = o.getClass();
      if (c.isArray()) {
        if (!c.getComponentType().isPrimitive()) {
          for (Object e : (Object[]) o) {
            if (e != null) {
              stack.push(e);
            }
          }
        }
        continue;
      }
      for (Field f : referenceFields(c)) {
        try {
          Object v = f.get(o);
          if (v != null) {
            stack.push(v);
          }
        } catch (IllegalAccessException e) {
          throw new IllegalStateException("cannot read " + f, e);
        }
      }
    }
    return total;
  }

  private static synchronized Field[] referenceFields(Class<?> c) {
    Field[] cached = FIELDS.get(c);
    if (cached != null) {
      return cached;
    }
    List<Field> out = new ArrayList<>();
    for (Class<?> k = c; k != null; k = k.getSuperclass()) {
      for (Field f : k.getDeclaredFields()) {
        if (!Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive()) {
          f.setAccessible(true);
          out.add(f);
        }
      }
    }
    cached = out.toArray(new Field[0]);
    FIELDS.put(c, cached);
    return cached;
  }
}
