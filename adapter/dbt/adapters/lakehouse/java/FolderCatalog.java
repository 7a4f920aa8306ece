package lakehouse.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.catalog.BucketSpec;
import org.apache.spark.sql.catalyst.catalog.CatalogColumnStat;
import org.apache.spark.sql.catalyst.catalog.CatalogDatabase;
import org.apache.spark.sql.catalyst.catalog.CatalogFunction;
import org.apache.spark.sql.catalyst.catalog.CatalogStatistics;
import org.apache.spark.sql.catalyst.catalog.CatalogStorageFormat;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogTablePartition;
import org.apache.spark.sql.catalyst.catalog.CatalogTableType;
import org.apache.spark.sql.catalyst.catalog.ExternalCatalogWithListener;
import org.apache.spark.sql.catalyst.catalog.FunctionResource;
import org.apache.spark.sql.catalyst.catalog.FunctionResourceType;
import org.apache.spark.sql.catalyst.catalog.InMemoryCatalog;
import org.apache.spark.sql.internal.SharedState;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.Tuple2;
import scala.collection.JavaConverters;
import scala.collection.Seq;
import scala.math.BigInt;

/**
 * A lake's catalog kept as files in a folder of the lake: one folder per
 * schema, one JSON file per table or view, written as each change is made.
 *
 * <p>Spark's in-memory catalog serves every read; this class writes each
 * change through to the folder before the statement that made it returns, and
 * reads the folder back when a session starts on the lake. Against Hive's
 * metastore on a Derby database of the lake's own (the other way a lake keeps
 * its catalog), a session starts on a lake without starting Hive, DataNucleus
 * or Derby: what a process that runs several projects pays for each.
 *
 * <p>A file is written whole beside its final name and moved over it, so a run
 * killed mid-write leaves the last complete definition. One process uses a
 * lake at a time (the adapter's lake lock), so nothing here locks.
 */
public class FolderCatalog extends InMemoryCatalog {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SCHEMA_FILE = "_schema.json";
  // Bumped when the files' shape changes in a way older readers cannot read.
  private static final int VERSION = 1;

  private final Path folder;

  public FolderCatalog(SparkConf conf, Configuration hadoopConf, String folder) {
    super(conf, hadoopConf);
    this.folder = Paths.get(folder);
    load();
  }

  /**
   * A session of its own on the running context whose catalog is the folder:
   * `existing` lends the context and its extensions (Hudi's, Delta's), which
   * the new session applies as a session built with them would.
   */
  public static SparkSession session(
      SparkSession existing, Map<String, String> options, String folder) {
    SparkContext context = existing.sparkContext();
    scala.collection.immutable.Map<String, String> settings = scalaMap(options);
    SharedState shared = new Shared(context, settings, folder);
    return new SparkSession(
        context, Option.apply(shared), Option.empty(), existing.extensions(), settings);
  }

  /** Spark's shared state, with this catalog in place of the one its settings name. */
  static final class Shared extends SharedState {
    private final String folder;
    private ExternalCatalogWithListener catalog;

    Shared(SparkContext context, scala.collection.immutable.Map<String, String> settings,
        String folder) {
      super(context, settings);
      this.folder = folder;
    }

    @Override
    public synchronized ExternalCatalogWithListener externalCatalog() {
      if (catalog == null) {
        FolderCatalog own = new FolderCatalog(conf(), hadoopConf(), folder);
        if (!own.databaseExists("default")) {
          own.createDatabase(
              new CatalogDatabase(
                  "default",
                  "default database",
                  new org.apache.hadoop.fs.Path(conf().get("spark.sql.warehouse.dir")).toUri(),
                  scalaMap(new java.util.HashMap<>())),
              true);
        }
        catalog = new ExternalCatalogWithListener(own);
      }
      return catalog;
    }
  }

  // ---- changes: Spark's in-memory catalog first, then the folder ----

  @Override
  public void createDatabase(CatalogDatabase database, boolean ignoreIfExists) {
    super.createDatabase(database, ignoreIfExists);
    writeSchema(database.name());
  }

  @Override
  public void dropDatabase(String db, boolean ignoreIfNotExists, boolean cascade) {
    super.dropDatabase(db, ignoreIfNotExists, cascade);
    deleteTree(schemaFolder(db));
  }

  @Override
  public synchronized void alterDatabase(CatalogDatabase database) {
    super.alterDatabase(database);
    writeSchema(database.name());
  }

  @Override
  public void createTable(CatalogTable table, boolean ignoreIfExists) {
    super.createTable(owned(table), ignoreIfExists);
    writeTable(table.identifier().database().get(), table.identifier().table());
  }

  /** The table with its owner, the user who created it when it names none, as Hive records. */
  private static CatalogTable owned(CatalogTable table) {
    if (!table.owner().isEmpty()) {
      return table;
    }
    return table.copy(
        table.identifier(),
        table.tableType(),
        table.storage(),
        table.schema(),
        table.provider(),
        table.partitionColumnNames(),
        table.bucketSpec(),
        org.apache.spark.util.Utils.getCurrentUserName(),
        table.createTime(),
        table.lastAccessTime(),
        table.createVersion(),
        table.properties(),
        table.stats(),
        table.viewText(),
        table.comment(),
        table.unsupportedFeatures(),
        table.tracksPartitionsInCatalog(),
        table.schemaPreservesCase(),
        table.ignoredProperties(),
        table.viewOriginalText());
  }

  @Override
  public void dropTable(String db, String table, boolean ignoreIfNotExists, boolean purge) {
    super.dropTable(db, table, ignoreIfNotExists, purge);
    delete(tableFile(db, table));
  }

  @Override
  public void renameTable(String db, String oldName, String newName) {
    super.renameTable(db, oldName, newName);
    writeTable(db, newName);
    delete(tableFile(db, oldName));
  }

  @Override
  public synchronized void alterTable(CatalogTable table) {
    super.alterTable(table);
    writeTable(table.identifier().database().get(), table.identifier().table());
  }

  @Override
  public synchronized void alterTableDataSchema(String db, String table, StructType schema) {
    super.alterTableDataSchema(db, table, schema);
    writeTable(db, table);
  }

  @Override
  public synchronized void alterTableStats(
      String db, String table, Option<CatalogStatistics> stats) {
    super.alterTableStats(db, table, stats);
    writeTable(db, table);
  }

  @Override
  public synchronized void createPartitions(
      String db, String table, Seq<CatalogTablePartition> parts, boolean ignoreIfExists) {
    super.createPartitions(db, table, parts, ignoreIfExists);
    writeTable(db, table);
  }

  @Override
  public synchronized void dropPartitions(
      String db,
      String table,
      Seq<scala.collection.immutable.Map<String, String>> parts,
      boolean ignoreIfNotExists,
      boolean purge,
      boolean retainData) {
    super.dropPartitions(db, table, parts, ignoreIfNotExists, purge, retainData);
    writeTable(db, table);
  }

  @Override
  public synchronized void renamePartitions(
      String db,
      String table,
      Seq<scala.collection.immutable.Map<String, String>> specs,
      Seq<scala.collection.immutable.Map<String, String>> newSpecs) {
    super.renamePartitions(db, table, specs, newSpecs);
    writeTable(db, table);
  }

  @Override
  public synchronized void alterPartitions(
      String db, String table, Seq<CatalogTablePartition> parts) {
    super.alterPartitions(db, table, parts);
    writeTable(db, table);
  }

  @Override
  public void createFunction(String db, CatalogFunction function) {
    super.createFunction(db, function);
    writeSchema(db);
  }

  @Override
  public void dropFunction(String db, String name) {
    super.dropFunction(db, name);
    writeSchema(db);
  }

  @Override
  public void alterFunction(String db, CatalogFunction function) {
    super.alterFunction(db, function);
    writeSchema(db);
  }

  @Override
  public void renameFunction(String db, String oldName, String newName) {
    super.renameFunction(db, oldName, newName);
    writeSchema(db);
  }

  // ---- the folder read back ----

  private void load() {
    if (!Files.isDirectory(folder)) {
      return;
    }
    for (Path schema : children(folder)) {
      Path file = schema.resolve(SCHEMA_FILE);
      if (!Files.isRegularFile(file)) {
        continue;
      }
      JsonNode node = read(file);
      String db = node.get("name").asText();
      super.createDatabase(
          new CatalogDatabase(
              db,
              node.get("description").asText(),
              URI.create(node.get("location").asText()),
              mapOf(node.get("properties"))),
          true);
      for (JsonNode function : node.path("functions")) {
        List<FunctionResource> resources = new ArrayList<>();
        for (JsonNode resource : function.path("resources")) {
          resources.add(
              new FunctionResource(
                  FunctionResourceType.fromString(resource.get("type").asText()),
                  resource.get("uri").asText()));
        }
        super.createFunction(
            db,
            new CatalogFunction(
                new FunctionIdentifier(function.get("name").asText(), Option.apply(db)),
                function.get("class").asText(),
                seqOf(resources)));
      }
      for (Path entry : children(schema)) {
        String name = entry.getFileName().toString();
        if (name.equals(SCHEMA_FILE) || !name.endsWith(".json")) {
          continue;
        }
        JsonNode table = read(entry);
        CatalogTable definition = tableOf(db, table);
        super.createTable(definition, true);
        List<CatalogTablePartition> parts = new ArrayList<>();
        for (JsonNode part : table.path("partitions")) {
          parts.add(
              new CatalogTablePartition(
                  mapOf(part.get("spec")),
                  storageOf(part.get("storage")),
                  mapOf(part.get("parameters")),
                  part.get("createTime").asLong(),
                  part.get("lastAccessTime").asLong(),
                  statsOf(part.get("stats"), definition.identifier().table())));
        }
        if (!parts.isEmpty()) {
          super.createPartitions(db, definition.identifier().table(), seqOf(parts), true);
        }
      }
    }
  }

  private static CatalogTable tableOf(String db, JsonNode node) {
    String name = node.get("name").asText();
    JsonNode bucket = node.get("bucketSpec");
    return new CatalogTable(
        new TableIdentifier(name, Option.apply(db), optionOf(node.get("catalog"))),
        CatalogTableType.apply(node.get("tableType").asText()),
        storageOf(node.get("storage")),
        (StructType) DataType.fromJson(node.get("schema").asText()),
        optionOf(node.get("provider")),
        seqOf(stringsOf(node.get("partitionColumnNames"))),
        bucket == null || bucket.isNull()
            ? Option.<BucketSpec>empty()
            : Option.apply(
                new BucketSpec(
                    bucket.get("numBuckets").asInt(),
                    seqOf(stringsOf(bucket.get("bucketColumnNames"))),
                    seqOf(stringsOf(bucket.get("sortColumnNames"))))),
        node.get("owner").asText(),
        node.get("createTime").asLong(),
        node.get("lastAccessTime").asLong(),
        node.get("createVersion").asText(),
        mapOf(node.get("properties")),
        statsOf(node.get("stats"), name),
        optionOf(node.get("viewText")),
        optionOf(node.get("comment")),
        seqOf(stringsOf(node.get("unsupportedFeatures"))),
        node.get("tracksPartitionsInCatalog").asBoolean(),
        node.get("schemaPreservesCase").asBoolean(),
        mapOf(node.get("ignoredProperties")),
        optionOf(node.get("viewOriginalText")));
  }

  private static CatalogStorageFormat storageOf(JsonNode node) {
    Option<String> location = optionOf(node.get("locationUri"));
    return new CatalogStorageFormat(
        location.isDefined() ? Option.apply(URI.create(location.get())) : Option.<URI>empty(),
        optionOf(node.get("inputFormat")),
        optionOf(node.get("outputFormat")),
        optionOf(node.get("serde")),
        node.get("compressed").asBoolean(),
        mapOf(node.get("properties")));
  }

  private static Option<CatalogStatistics> statsOf(JsonNode node, String table) {
    if (node == null || node.isNull()) {
      return Option.empty();
    }
    scala.collection.immutable.Map<String, CatalogColumnStat> columns =
        new scala.collection.immutable.HashMap<>();
    Iterator<Map.Entry<String, JsonNode>> fields = node.path("columns").fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> column = fields.next();
      Option<CatalogColumnStat> stat =
          CatalogColumnStat.fromMap(table, column.getKey(), mapOf(column.getValue()));
      if (stat.isDefined()) {
        columns = columns.$plus(new Tuple2<>(column.getKey(), stat.get()));
      }
    }
    JsonNode rows = node.get("rowCount");
    return Option.apply(
        new CatalogStatistics(
            BigInt.apply(node.get("sizeInBytes").asText()),
            rows == null || rows.isNull()
                ? Option.<BigInt>empty()
                : Option.apply(BigInt.apply(rows.asText())),
            columns));
  }

  // ---- the folder written ----

  private void writeSchema(String db) {
    CatalogDatabase database = getDatabase(db);
    ObjectNode node = JSON.createObjectNode();
    node.put("version", VERSION);
    node.put("name", database.name());
    node.put("description", database.description());
    node.put("location", database.locationUri().toString());
    node.set("properties", mapNode(database.properties()));
    ArrayNode functions = node.putArray("functions");
    for (String name : JavaConverters.seqAsJavaList(listFunctions(db, "*"))) {
      CatalogFunction function = getFunction(db, name);
      ObjectNode entry = functions.addObject();
      entry.put("name", function.identifier().funcName());
      entry.put("class", function.className());
      ArrayNode resources = entry.putArray("resources");
      for (FunctionResource resource : JavaConverters.seqAsJavaList(function.resources())) {
        resources.addObject()
            .put("type", resource.resourceType().resourceType())
            .put("uri", resource.uri());
      }
    }
    write(schemaFolder(db).resolve(SCHEMA_FILE), node);
  }

  private void writeTable(String db, String name) {
    CatalogTable table = getTable(db, name);
    ObjectNode node = JSON.createObjectNode();
    node.put("version", VERSION);
    node.put("name", table.identifier().table());
    putOption(node, "catalog", table.identifier().catalog());
    node.put("tableType", table.tableType().name());
    node.set("storage", storageNode(table.storage()));
    node.put("schema", table.schema().json());
    putOption(node, "provider", table.provider());
    node.set("partitionColumnNames", stringsNode(table.partitionColumnNames()));
    if (table.bucketSpec().isDefined()) {
      BucketSpec bucket = table.bucketSpec().get();
      ObjectNode spec = node.putObject("bucketSpec");
      spec.put("numBuckets", bucket.numBuckets());
      spec.set("bucketColumnNames", stringsNode(bucket.bucketColumnNames()));
      spec.set("sortColumnNames", stringsNode(bucket.sortColumnNames()));
    }
    node.put("owner", table.owner());
    node.put("createTime", table.createTime());
    node.put("lastAccessTime", table.lastAccessTime());
    node.put("createVersion", table.createVersion());
    node.set("properties", mapNode(table.properties()));
    node.set("stats", statsNode(table.stats()));
    putOption(node, "viewText", table.viewText());
    putOption(node, "comment", table.comment());
    node.set("unsupportedFeatures", stringsNode(table.unsupportedFeatures()));
    node.put("tracksPartitionsInCatalog", table.tracksPartitionsInCatalog());
    node.put("schemaPreservesCase", table.schemaPreservesCase());
    node.set("ignoredProperties", mapNode(table.ignoredProperties()));
    putOption(node, "viewOriginalText", table.viewOriginalText());
    ArrayNode parts = node.putArray("partitions");
    if (!table.partitionColumnNames().isEmpty() && table.tracksPartitionsInCatalog()) {
      for (CatalogTablePartition part :
          JavaConverters.seqAsJavaList(listPartitions(db, name, Option.empty()))) {
        ObjectNode entry = parts.addObject();
        entry.set("spec", mapNode(part.spec()));
        entry.set("storage", storageNode(part.storage()));
        entry.set("parameters", mapNode(part.parameters()));
        entry.put("createTime", part.createTime());
        entry.put("lastAccessTime", part.lastAccessTime());
        entry.set("stats", statsNode(part.stats()));
      }
    }
    write(tableFile(db, name), node);
  }

  private static ObjectNode storageNode(CatalogStorageFormat storage) {
    ObjectNode node = JSON.createObjectNode();
    Option<URI> location = storage.locationUri();
    putOption(
        node,
        "locationUri",
        location.isDefined() ? Option.apply(location.get().toString()) : Option.<String>empty());
    putOption(node, "inputFormat", storage.inputFormat());
    putOption(node, "outputFormat", storage.outputFormat());
    putOption(node, "serde", storage.serde());
    node.put("compressed", storage.compressed());
    node.set("properties", mapNode(storage.properties()));
    return node;
  }

  private static JsonNode statsNode(Option<CatalogStatistics> option) {
    if (option.isEmpty()) {
      return JSON.nullNode();
    }
    CatalogStatistics stats = option.get();
    ObjectNode node = JSON.createObjectNode();
    node.put("sizeInBytes", stats.sizeInBytes().toString());
    if (stats.rowCount().isDefined()) {
      node.put("rowCount", stats.rowCount().get().toString());
    }
    ObjectNode columns = node.putObject("columns");
    for (Map.Entry<String, CatalogColumnStat> column :
        JavaConverters.mapAsJavaMap(stats.colStats()).entrySet()) {
      columns.set(column.getKey(), mapNode(column.getValue().toMap(column.getKey())));
    }
    return node;
  }

  // ---- files ----

  private Path schemaFolder(String db) {
    return folder.resolve(fileName(db));
  }

  private Path tableFile(String db, String table) {
    return schemaFolder(db).resolve(fileName(table) + ".json");
  }

  // Names as file names: Spark allows any character in a quoted name.
  private static String fileName(String name) {
    try {
      return URLEncoder.encode(name, "UTF-8");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String nameOf(String fileName) {
    try {
      return URLDecoder.decode(fileName, "UTF-8");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path file, JsonNode node) {
    try {
      Files.createDirectories(file.getParent());
      Path staged = file.resolveSibling("." + file.getFileName() + "." + UUID.randomUUID());
      Files.write(staged, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(node));
      Files.move(staged, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("writing the lake's catalog file " + file, e);
    }
  }

  private static JsonNode read(Path file) {
    try {
      return JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("reading the lake's catalog file " + file, e);
    }
  }

  private static void delete(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException("removing the lake's catalog file " + file, e);
    }
  }

  private static void deleteTree(Path tree) {
    if (!Files.isDirectory(tree)) {
      return;
    }
    // Every file, a write a killed run left half-done (a dot file) too.
    for (Path child : entries(tree, true)) {
      delete(child);
    }
    delete(tree);
  }

  /** A folder's entries but the files being written (dot files). */
  private static List<Path> children(Path dir) {
    return entries(dir, false);
  }

  private static List<Path> entries(Path dir, boolean dotFiles) {
    List<Path> found = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      for (Path child : stream) {
        if (dotFiles || !child.getFileName().toString().startsWith(".")) {
          found.add(child);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("listing the lake's catalog folder " + dir, e);
    }
    found.sort(null);
    return found;
  }

  // ---- Scala and JSON values ----

  static scala.collection.immutable.Map<String, String> scalaMap(Map<String, String> map) {
    scala.collection.immutable.Map<String, String> result =
        new scala.collection.immutable.HashMap<>();
    for (Map.Entry<String, String> entry : map.entrySet()) {
      result = result.$plus(new Tuple2<>(entry.getKey(), entry.getValue()));
    }
    return result;
  }

  private static scala.collection.immutable.Map<String, String> mapOf(JsonNode node) {
    Map<String, String> map = new java.util.TreeMap<>();
    if (node != null) {
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        map.put(field.getKey(), field.getValue().asText());
      }
    }
    return scalaMap(map);
  }

  private static ObjectNode mapNode(scala.collection.Map<String, String> map) {
    ObjectNode node = JSON.createObjectNode();
    for (Map.Entry<String, String> entry :
        new java.util.TreeMap<>(JavaConverters.mapAsJavaMap(map)).entrySet()) {
      node.put(entry.getKey(), entry.getValue());
    }
    return node;
  }

  private static <T> Seq<T> seqOf(List<T> list) {
    return JavaConverters.asScalaBuffer(list).toList();
  }

  private static List<String> stringsOf(JsonNode node) {
    List<String> strings = new ArrayList<>();
    if (node != null) {
      for (JsonNode item : node) {
        strings.add(item.asText());
      }
    }
    return strings;
  }

  private static ArrayNode stringsNode(Seq<String> strings) {
    ArrayNode node = JSON.createArrayNode();
    for (String item : JavaConverters.seqAsJavaList(strings)) {
      node.add(item);
    }
    return node;
  }

  private static Option<String> optionOf(JsonNode node) {
    return node == null || node.isNull() ? Option.<String>empty() : Option.apply(node.asText());
  }

  private static void putOption(ObjectNode node, String key, Option<String> value) {
    if (value.isDefined()) {
      node.put(key, value.get());
    } else {
      node.putNull(key);
    }
  }
}
