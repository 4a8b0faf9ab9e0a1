package dev.tenure.maintenance.door;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The source files one reconcile enters, in order: issue 36's "follow the NodeMaintenance through one reconcile".
 *
 * <p>How it is traced, without an agent: {@link Loader} loads {@code dev.tenure.maintenance} child-first and, for the
 * operator's own classes (those compiled to {@code target/classes}), puts a call of {@link #enter} at the start of
 * every method. {@link #enter} looks at the stack (a {@link StackWalker}) and records the entered file when the
 * nearest traced caller is in another file: a call within a file is not a visit, and neither is a return (a reconcile
 * that reads as observe, decide, act goes back to its reconciler between the steps). Consecutive entries of one file
 * are one visit (a stream that asks the same file of each element).
 *
 * <p>What is followed: the door ({@code door/}) and the admission rules ({@code admission/}) all the way down; a call
 * into the machine room ({@code machine/}, {@code drain/}) is one visit, and what the machine does inside it (its
 * stages, steps, and the events it emits through the door's callback) is the machine's own business. The data that
 * flows between the stops is not a stop: the API types ({@code api/}) and records (with the classes nested in them:
 * {@code MaintenanceState} and its builder, {@code MaintenanceRequest}, the decisions' records).
 */
public final class CallPath {

    private static final StackWalker STACK = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    private static final Set<Class<?>> TRACED = ConcurrentHashMap.newKeySet();
    private static final ThreadLocal<List<String>> PATH = new ThreadLocal<>();

    private CallPath() {}

    /** Starts recording this thread's path. */
    public static void start() {
        PATH.set(new ArrayList<>());
    }

    /** Stops recording; the files entered, {@code room/File.java}, consecutive repeats merged. */
    public static List<String> stop() {
        List<String> path = PATH.get();
        PATH.remove();
        return path == null ? List.of() : List.copyOf(path);
    }

    /** Called at the start of every traced method. */
    public static void enter() {
        List<String> path = PATH.get();
        if (path == null) {
            return;
        }
        List<StackWalker.StackFrame> traced = STACK.walk(frames -> frames.skip(1)
                .filter(f -> TRACED.contains(f.getDeclaringClass()))
                .toList());
        StackWalker.StackFrame callee = traced.get(0);
        if (traced.stream().skip(1).anyMatch(f -> machineRoom(f.getDeclaringClass()))) {
            return; // inside a call into the machine room: not followed
        }
        String file = file(callee);
        Optional<String> caller = traced.stream().skip(1).findFirst().map(CallPath::file);
        if (caller.isPresent() && caller.get().equals(file)) {
            return; // a call within the file
        }
        if (path.isEmpty() || !path.get(path.size() - 1).equals(file)) {
            path.add(file);
        }
    }

    private static boolean machineRoom(Class<?> c) {
        String pkg = c.getPackageName();
        return pkg.equals("dev.tenure.maintenance.machine") || pkg.equals("dev.tenure.maintenance.drain");
    }

    private static String file(StackWalker.StackFrame frame) {
        String pkg = frame.getDeclaringClass().getPackageName();
        return pkg.substring(pkg.lastIndexOf('.') + 1) + "/" + frame.getFileName();
    }

    /**
     * Loads {@code dev.tenure.maintenance} (main and test classes) child-first, the operator's own classes of it with
     * {@link #enter} at the start of each method; everything else, and {@link CallPath} itself, from the parent.
     */
    public static final class Loader extends ClassLoader {
        private static final String ROOT = "dev.tenure.maintenance.";

        public Loader(ClassLoader parent) {
            super("call-path", parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith(ROOT) || name.equals(CallPath.class.getName())) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = define(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        private Class<?> define(String name) throws ClassNotFoundException {
            URL url = getParent().getResource(name.replace('.', '/') + ".class");
            if (url == null) {
                throw new ClassNotFoundException(name);
            }
            byte[] bytes = read(url);
            boolean traced = url.getPath().contains("/classes/")
                    && !url.getPath().contains("/test-classes/")
                    && !name.startsWith(ROOT + "api.")
                    && !isRecordOrInOne(name, bytes);
            if (traced) {
                bytes = instrument(bytes);
            }
            Class<?> c = defineClass(name, bytes, 0, bytes.length);
            if (traced) {
                TRACED.add(c);
            }
            return c;
        }

        private boolean isRecordOrInOne(String name, byte[] bytes) {
            if ("java/lang/Record".equals(new ClassReader(bytes).getSuperName())) {
                return true;
            }
            int nested = name.lastIndexOf('$');
            if (nested < 0) {
                return false;
            }
            String outer = name.substring(0, nested);
            URL url = getParent().getResource(outer.replace('.', '/') + ".class");
            return url != null && isRecordOrInOne(outer, read(url));
        }

        private static byte[] read(URL url) {
            try (InputStream in = url.openStream()) {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static byte[] instrument(byte[] bytes) {
            ClassReader reader = new ClassReader(bytes);
            ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
            reader.accept(
                    new ClassVisitor(Opcodes.ASM9, writer) {
                        @Override
                        public MethodVisitor visitMethod(
                                int access, String name, String descriptor, String signature, String[] exceptions) {
                            MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
                            if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0
                                    || name.equals("<clinit>")) {
                                return mv;
                            }
                            return new MethodVisitor(Opcodes.ASM9, mv) {
                                @Override
                                public void visitCode() {
                                    super.visitCode();
                                    super.visitMethodInsn(
                                            Opcodes.INVOKESTATIC,
                                            CallPath.class.getName().replace('.', '/'),
                                            "enter",
                                            "()V",
                                            false);
                                }
                            };
                        }
                    },
                    0);
            return writer.toByteArray();
        }
    }
}
