// Records, from a real JVM, the hash codes, HashMap/HashSet iteration orders and PriorityQueue poll
// orders that the SDK's Java iteration order (assignor/java_order.hpp) reproduces. Its output is
// committed beside it as java_order.txt and read by tests/sdk/test_java_order.cpp; a JVM is not
// needed to build or test the project.
//
//   javac -d /tmp RecordJavaOrder.java && java -cp /tmp RecordJavaOrder > java_order.txt
//
// Key kinds (the prefix of every key): str: a java.lang.String; task:S_P a Kafka Streams TaskId
// (hashCode Objects.hash(subtopology, partition, namedTopology = null)); ktask:S_P the KIP-1071
// group coordinator's TaskId, a record (String subtopologyId, int partition); uuid:R a process id
// UUID(0, R).
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.UUID;

public final class RecordJavaOrder {
    static final class StreamsTaskId {
        final int subtopology;
        final int partition;
        final String namedTopology = null;
        StreamsTaskId(int s, int p) { subtopology = s; partition = p; }
        @Override public boolean equals(Object o) {
            return o instanceof StreamsTaskId && ((StreamsTaskId) o).subtopology == subtopology
                && ((StreamsTaskId) o).partition == partition;
        }
        @Override public int hashCode() { return Objects.hash(subtopology, partition, namedTopology); }
    }

    record Kip1071TaskId(String subtopologyId, int partition) { }

    static final class Key {
        final String text;
        final Object value;
        Key(String text) {
            this.text = text;
            final String body = text.substring(text.indexOf(':') + 1);
            if (text.startsWith("str:")) {
                value = body;
            } else if (text.startsWith("task:") || text.startsWith("ktask:")) {
                final String[] sp = body.split("_");
                value = text.startsWith("task:") ? new StreamsTaskId(Integer.parseInt(sp[0]), Integer.parseInt(sp[1]))
                                                 : new Kip1071TaskId(sp[0], Integer.parseInt(sp[1]));
            } else {
                value = new UUID(0, Long.parseLong(body));
            }
        }
    }

    static String hex(String s) {
        final StringBuilder b = new StringBuilder();
        for (byte x : s.getBytes(StandardCharsets.UTF_8)) b.append(String.format("%02x", x));
        return b.length() == 0 ? "-" : b.toString();
    }

    // ctor: "default" (new HashMap<>()), "cap:N" (new HashMap<>(N)), "copy" (new HashSet<>(collection of the
    // put keys, in their order)). ops: put:KEY, cia:KEY (computeIfAbsent), del:KEY.
    static void map(String name, String ctor, List<String> ops) {
        final Map<Object, String> byValue = new HashMap<>();
        final List<String> order = new ArrayList<>();
        if (ctor.equals("copy")) {
            final List<Object> values = new ArrayList<>();
            for (String op : ops) {
                final Key k = new Key(op.substring(4));
                values.add(k.value);
                byValue.put(k.value, k.text);
            }
            for (Object v : new HashSet<>(values)) order.add(byValue.get(v));
        } else {
            final HashMap<Object, Boolean> m = ctor.equals("default") ? new HashMap<>()
                : new HashMap<>(Integer.parseInt(ctor.substring(4)));
            for (String op : ops) {
                final Key k = new Key(op.substring(op.indexOf(':') + 1));
                byValue.put(k.value, k.text);
                if (op.startsWith("put:")) m.put(k.value, true);
                else if (op.startsWith("cia:")) m.computeIfAbsent(k.value, x -> true);
                else m.remove(k.value);
            }
            for (Object v : m.keySet()) order.add(byValue.get(v));
        }
        System.out.println("map " + name + " ctor=" + ctor + " ops=" + String.join(",", ops) + " order="
            + String.join(",", order));
    }

    static List<String> seq(String op, String prefix, int from, int to) {
        final List<String> out = new ArrayList<>();
        for (int i = from; i < to; i++) out.add(op + ":" + prefix + i);
        return out;
    }

    public static void main(String[] args) {
        System.out.println("# recorded by RecordJavaOrder.java on " + System.getProperty("java.vm.name") + " "
            + System.getProperty("java.version"));
        for (String s : new String[] {"", "a", "client-0000", "client-0015", "client-0000-StreamThread-1",
                                      "client-0010/t0", "process-7", "Aa", "BB", "zone", "\u00e9t\u00e9",
                                      "\u65e5\u672c", "\ud83d\ude00x", "a126df22-663b-4d36-86c1-f8f7e8f7cafb"})
            System.out.println("string_hash " + hex(s) + " " + s.hashCode());
        final long[][] uuids = {{0, 0}, {0, 1}, {0, 39}, {0, 70000}, {0x7fffffffffffffffL, -1},
                                {0xa126df22663b4d36L, 0x86c1f8f7e8f7cafbL}, {-1, 5}};
        for (long[] u : uuids)
            System.out.println("uuid_hash " + u[0] + " " + u[1] + " " + new UUID(u[0], u[1]).hashCode());
        final int[][] tasks = {{0, 0}, {0, 31}, {1, 0}, {3, 17}, {9, 299}, {12, 1000}, {70000, 5}};
        for (int[] t : tasks) {
            System.out.println("streams_task_hash " + t[0] + " " + t[1] + " " + new StreamsTaskId(t[0], t[1]).hashCode());
            System.out.println("kip1071_task_hash " + t[0] + " " + t[1] + " "
                + new Kip1071TaskId(Integer.toString(t[0]), t[1]).hashCode());
        }

        // Growth past the 12, 24 and 48 thresholds of a default map.
        for (int n : new int[] {12, 13, 40, 49}) {
            final List<String> ops = new ArrayList<>();
            for (int i = 0; i < n; i++) ops.add(String.format("put:str:client-%04d-StreamThread-1", i));
            map("members" + n, "default", ops);
        }
        // computeIfAbsent prepends to a bin and resizes before inserting: processes keyed by id in a
        // map presized for their members, inserted in a scrambled order (several bins collide).
        final List<String> procs = new ArrayList<>();
        for (int i : new int[] {10, 15, 2, 6, 11, 3, 7, 4, 12, 8, 0, 13, 14, 1, 5, 9})
            procs.add(String.format("cia:str:client-%04d", i));
        map("processes-cia", "cap:32", procs);
        final List<String> procsPut = new ArrayList<>();
        for (String op : procs) procsPut.add("put:" + op.substring(4));
        map("processes-put", "cap:32", procsPut);
        for (int n : new int[] {12, 13, 14, 25}) {
            final List<String> ops = new ArrayList<>();
            for (int i = n - 1; i >= 0; i--) ops.add(String.format("cia:str:client-%04d", i));
            map("cia" + n, "default", ops);
        }
        // Kafka Streams TaskIds: equal hash codes for 31 * s + p equal, in a set grown by add and in
        // one copied from a collection (presized: 12 elements give 32 bins, not 16).
        final List<String> taskOps = new ArrayList<>();
        for (int s = 0; s < 5; s++) for (int p = 0; p < 40; p++) taskOps.add("put:task:" + s + "_" + p);
        map("tasks-add", "default", taskOps);
        map("tasks-copy", "copy", taskOps);
        map("tasks-copy12", "copy", taskOps.subList(0, 12));
        map("tasks-add12", "default", taskOps.subList(0, 12));
        final List<String> removals = new ArrayList<>(taskOps.subList(0, 60));
        for (int p = 0; p < 40; p += 3) removals.add("del:task:0_" + p);
        removals.add("put:task:7_7");
        map("tasks-removed", "default", removals);
        // KIP-1071 TaskIds (records) and process UUIDs.
        final List<String> ktasks = new ArrayList<>();
        for (int s = 0; s < 12; s++) for (int p = 0; p < 6; p++) ktasks.add("put:ktask:" + s + "_" + p);
        map("ktasks", "default", ktasks);
        map("uuids", "default", seq("put", "uuid:", 0, 40));
        map("uuid-subset", "copy", List.of("put:uuid:33", "put:uuid:17", "put:uuid:5", "put:uuid:18", "put:uuid:1"));
        // Nine keys in one bin of a table smaller than 64: the map resizes instead of making a tree.
        final List<String> collide = new ArrayList<>();
        for (String s : new String[] {"AaAaAa", "AaAaBB", "AaBBAa", "AaBBBB", "BBAaAa", "BBAaBB", "BBBBAa", "BBBBBB",
                                      "AaAaAaAa"})
            collide.add("put:str:" + s);
        collide.addAll(seq("put", "str:k", 0, 4));
        map("resize-not-tree", "default", collide);

        // PriorityQueue poll order with a comparator on the key only (ties left to the heap).
        pq("ties", "offer:a:1,offer:b:1,offer:c:0,offer:d:1,offer:e:0,offer:f:2,offer:g:1,offer:h:0,poll,poll,"
            + "offer:i:0,poll,offer:j:1,poll,poll,poll,poll,poll,poll,poll,poll");
        final StringBuilder many = new StringBuilder();
        for (int i = 0; i < 40; i++) many.append("offer:m").append(i).append(':').append((i * 7) % 5).append(',');
        for (int r = 0; r < 30; r++) many.append("poll,offer:r").append(r).append(':').append((r * 3) % 4).append(',');
        for (int i = 0; i < 20; i++) many.append("poll,");
        many.append("remove:m7,remove:r9,offer:z:0,remove:m2,poll");
        pq("interleaved", many.toString());
    }

    record Item(String name, int key) { }

    static void pq(String name, String ops) {
        final PriorityQueue<Item> q = new PriorityQueue<>((x, y) -> Integer.compare(x.key, y.key));
        final Map<String, Item> items = new HashMap<>();
        final List<String> polled = new ArrayList<>();
        for (String op : ops.split(",")) {
            final String[] f = op.split(":");
            if (f[0].equals("offer")) {
                final Item it = new Item(f[1], Integer.parseInt(f[2]));
                items.put(f[1], it);
                q.offer(it);
            } else if (f[0].equals("poll")) {
                final Item it = q.poll();
                polled.add(it == null ? "-" : it.name);
            } else {
                q.remove(items.get(f[1]));
            }
        }
        while (!q.isEmpty()) polled.add(q.poll().name);
        System.out.println("pq " + name + " ops=" + ops + " polled=" + String.join(",", polled));
    }
}
