// Apache Avro Java's per-value varint paths over avrokit's bench data sets (bench/bench_common.cc).
//
// Same seeded values as avrokit_bench (std::mt19937_64, seeds 42 + len and 142 + max_len,
// the same draws), so the ns/value here sit beside the avrokit Varint/*/Single rows. Each
// row is JIT-warmed, then timed over repetitions of whole passes; the median is reported.
// Decode: BinaryDecoder.readLong over a byte[] decoder (the position lives in the decoder,
// which the JIT keeps in a register across the loop). Encode: BinaryData.encodeLong into a
// byte[] with the position in a local, and BinaryEncoder.writeLong through a buffered encoder.
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.avro.io.BinaryData;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

public final class VarintBench {
    static final int VALUES = 65536;
    static final long SEED = 42;

    /** std::mt19937_64, as the C++ bench seeds it. */
    static final class Mt64 {
        private final long[] mt = new long[312];
        private int mti;
        Mt64(long seed) {
            mt[0] = seed;
            for (int i = 1; i < 312; i++)
                mt[i] = 6364136223846793005L * (mt[i - 1] ^ (mt[i - 1] >>> 62)) + i;
            mti = 312;
        }
        long next() {
            if (mti >= 312) {
                for (int i = 0; i < 312; i++) {
                    long x = (mt[i] & 0xFFFFFFFF80000000L) | (mt[(i + 1) % 312] & 0x7FFFFFFFL);
                    long xa = x >>> 1;
                    if ((x & 1) != 0)
                        xa ^= 0xB5026F5AA96619E9L;
                    mt[i] = mt[(i + 156) % 312] ^ xa;
                }
                mti = 0;
            }
            long x = mt[mti++];
            x ^= (x >>> 29) & 0x5555555555555555L;
            x ^= (x << 17) & 0x71D67FFFEDA60000L;
            x ^= (x << 37) & 0xFFF7EEE000000000L;
            x ^= x >>> 43;
            return x;
        }
    }

    static long zigzagDecode(long u) {
        return (u >>> 1) ^ -(u & 1);
    }

    /** A value whose zigzag encoding is exactly len bytes (value_of_length in bench_common.cc). */
    static long valueOfLength(Mt64 rng, int len) {
        long lo = len == 1 ? 0 : 1L << (7 * (len - 1));
        long hi = len >= 10 ? -1L : (1L << (7 * len)) - 1;
        long span = hi - lo + 1; // as unsigned; 2^63 at most
        return zigzagDecode(lo + Long.remainderUnsigned(rng.next(), span));
    }

    static final class Dataset {
        final String name;
        final long[] values;
        final byte[] encoded;
        Dataset(String name, long[] values) {
            this.name = name;
            this.values = values;
            byte[] buf = new byte[values.length * 10];
            int pos = 0;
            for (long v : values)
                pos += BinaryData.encodeLong(v, buf, pos);
            this.encoded = Arrays.copyOf(buf, pos);
        }
    }

    static Dataset fixed(int len) {
        Mt64 rng = new Mt64(SEED + len);
        long[] v = new long[VALUES];
        for (int i = 0; i < VALUES; i++)
            v[i] = valueOfLength(rng, len);
        return new Dataset(Integer.toString(len), v);
    }

    static Dataset mixed(int maxLen) {
        Mt64 rng = new Mt64(SEED + 100 + maxLen);
        long[] v = new long[VALUES];
        for (int i = 0; i < VALUES; i++) {
            int len = 1 + (int)Long.remainderUnsigned(rng.next(), maxLen);
            v[i] = valueOfLength(rng, len);
        }
        return new Dataset("Mixed1-" + maxLen, v);
    }

    static long sink;

    interface Pass {
        void run() throws IOException;
    }

    /** Median ns per value over reps timed passes, after warm-up passes. */
    static double time(Pass pass, int warm, int reps, int passesPerRep) throws IOException {
        for (int i = 0; i < warm; i++)
            pass.run();
        double[] ns = new double[reps];
        for (int r = 0; r < reps; r++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < passesPerRep; i++)
                pass.run();
            ns[r] = (System.nanoTime() - t0) / (double)passesPerRep / VALUES;
        }
        Arrays.sort(ns);
        return ns[reps / 2];
    }

    static void decodeAll(Dataset d, long[] out) throws IOException {
        BinaryDecoder dec = DecoderFactory.get().binaryDecoder(d.encoded, null);
        for (int i = 0; i < out.length; i++)
            out[i] = dec.readLong();
    }

    static int encodeAll(Dataset d, byte[] buf) {
        long[] v = d.values;
        int pos = 0;
        for (int i = 0; i < v.length; i++)
            pos += BinaryData.encodeLong(v[i], buf, pos);
        return pos;
    }

    static void check(boolean ok, String what, Dataset d) {
        if (!ok) {
            System.err.println("VarintBench: " + what + " wrong on data set " + d.name);
            System.exit(1);
        }
    }

    public static void main(String[] args) throws IOException {
        int warm = 200, reps = 15, passes = 20;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--reps")) reps = Integer.parseInt(args[++i]);
            else if (args[i].equals("--warm")) warm = Integer.parseInt(args[++i]);
            else if (args[i].equals("--passes")) passes = Integer.parseInt(args[++i]);
        }
        List<Dataset> sets = new ArrayList<>();
        for (int len : new int[] {1, 2, 3, 4, 5, 8, 10})
            sets.add(fixed(len));
        sets.add(mixed(10));
        sets.add(mixed(2));

        System.out.printf("Apache Avro Java %s, %s %s; median of %d repetitions of %d passes, %d warm-up passes%n",
                          BinaryDecoder.class.getPackage().getImplementationVersion(),
                          System.getProperty("java.vm.name"), System.getProperty("java.version"),
                          reps, passes, warm);
        System.out.printf("%-36s %10s %10s%n", "row", "bytes/val", "ns/value");
        final long[] out = new long[VALUES];
        final byte[] buf = new byte[VALUES * 10 + 10];
        final ByteArrayOutputStream bos = new ByteArrayOutputStream(VALUES * 10 + 10);
        for (String op : new String[] {"Decode", "Encode", "EncodeWriter"}) {
            for (Dataset d : sets) {
                Pass pass;
                if (op.equals("Decode")) {
                    pass = () -> decodeAll(d, out);
                } else if (op.equals("Encode")) {
                    pass = () -> sink += encodeAll(d, buf);
                } else {
                    pass = () -> {
                        bos.reset();
                        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(bos, null);
                        for (long v : d.values)
                            enc.writeLong(v);
                        enc.flush();
                    };
                }
                double ns = time(pass, warm, reps, passes);
                if (op.equals("Decode"))
                    check(Arrays.equals(out, d.values), "decode", d);
                else if (op.equals("Encode"))
                    check(Arrays.equals(Arrays.copyOf(buf, d.encoded.length), d.encoded), "encode", d);
                else
                    check(Arrays.equals(bos.toByteArray(), d.encoded), "writeLong", d);
                System.out.printf("%-36s %10.2f %10.2f%n", "Varint/" + op + "/Single/" + d.name,
                                  d.encoded.length / (double)VALUES, ns);
            }
        }
    }
}
