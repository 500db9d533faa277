import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.Arrays;

/** A Kalah engine for mancalab (docs/engine-protocol.md): the move that gains the most seeds. */
public class GreedyKalah {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int[] cells = {};
        int toMove = 0;
        String[] moves = {};
        boolean emptyCapture = true;
        for (String line; (line = in.readLine()) != null; System.out.flush()) {
            String[] w = line.trim().split("\\s+");
            switch (w[0]) {
                case "mep" -> System.out.println("id name GreedyKalah\nmepok 1");
                case "game" -> emptyCapture = !Arrays.asList(w).contains("empty_capture=false");
                case "position" -> {
                    cells = Arrays.stream(w[1].split(",")).mapToInt(Integer::parseInt).toArray();
                    toMove = Integer.parseInt(w[2]);
                }
                case "moves" -> moves = Arrays.copyOfRange(w, 1, w.length);
                case "go" -> {
                    String best = moves[0];
                    int bestGain = Integer.MIN_VALUE;
                    for (String move : moves) {
                        int gain = gain(cells.clone(), toMove, Integer.parseInt(move), emptyCapture);
                        if (gain > bestGain) { bestGain = gain; best = move; }
                    }
                    System.out.println("move " + best);
                }
                case "quit" -> { return; }
                default -> { }
            }
        }
    }

    /** Seeds my store gains by sowing my pit k (1: next to my store), 100 more for an extra turn. */
    static int gain(int[] c, int me, int k, boolean emptyCapture) {
        int m = c.length / 2 - 1, store = me == 0 ? m : 2 * m + 1, skip = 2 * m + 1 - store + m;
        int before = c[store], at = store - k, hand = c[at];
        c[at] = 0;
        while (hand > 0) {
            at = (at + 1) % c.length;
            if (at != skip) { c[at]++; hand--; }
        }
        boolean mine = at < store && at >= store - m;
        int opposite = 2 * m - at;
        if (mine && c[at] == 1 && (emptyCapture || c[opposite] > 0)) {
            c[store] += c[opposite] + 1;
            c[at] = 0;
            c[opposite] = 0;
        }
        return c[store] - before + (at == store ? 100 : 0);
    }
}
