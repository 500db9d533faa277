#!/bin/sh
# Build Aalina, the Oware engine of the Aualé app (Joan Sala, GPL), from its public sources
# with a stock JDK and Debian's jars, for benchmarks/bench_oware.py. Nothing of it enters
# mancalab. Its two commands that need Berkeley DB (the opening-book trainer and the
# endgame-table builder) are left out; the engine, its books and its tables are whole.
#
#   apt-get install -y default-jdk-headless libguice-java libpicocli-java libjline3-java
#   sh benchmarks/aalina/build.sh [FOLDER]        (default: ~/.cache/mancalab/aalina)
set -e
folder=${1:-$HOME/.cache/mancalab/aalina}
mkdir -p "$folder" && cd "$folder"
[ -d samurai ] || git clone -q https://github.com/joansalasoler/samurai samurai
[ -d oware ] || git clone -q https://github.com/joansalasoler/oware oware
sed -i '/import com.joansala.cli.book.BookCommand;/d; /^\s*BookCommand.class,$/d' \
    samurai/src/main/java/com/joansala/cli/MainCommand.java
sed -i '/import com.joansala.cli.oware.egtb.EGTBCommand;/d; s/^\(\s*\)EGTBCommand.class$/\1/' \
    oware/src/main/java/com/joansala/game/oware/OwareModule.java
jars=/usr/share/java
classpath="$jars/guice.jar:$jars/guava.jar:$jars/aopalliance.jar:$jars/atinject-jsr330-api.jar"
classpath="$classpath:$jars/picocli.jar:$jars/jline3.jar"
rm -rf classes && mkdir classes
javac -nowarn -d classes -cp "$classpath" -sourcepath samurai/src/main/java:oware/src/main/java \
    oware/src/main/java/com/joansala/game/oware/OwareModule.java
resources="$folder/oware/src/main/resources"
cat > aalina <<SCRIPT
#!/bin/sh
exec java --add-opens java.base/java.lang=ALL-UNNAMED -cp "$folder/classes:$classpath:$resources" \\
    com.joansala.game.oware.OwareModule --roots "$resources/oware-roots.bin" \\
    --leaves "$resources/oware-leaves.bin" service
SCRIPT
chmod +x aalina
echo "$folder/aalina"
