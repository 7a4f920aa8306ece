package lakehouse.catalog;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.CatalogExtension;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.FunctionCatalog;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.StagingTableCatalog;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableCatalogCapability;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.hudi.catalog.HoodieCatalog;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The session catalog of a Spark session that holds Hudi tables beside Delta's
 * or Iceberg's, all under plain schema.table names.
 *
 * <p>Hudi's and Delta's catalogs each expect to be spark_catalog, and each is a
 * catalog extension that Spark hands its built-in catalog to: only one of them
 * can be given it. This one is given it and chains them: Delta's catalog (option
 * {@code delta=true}; loaded by name, so this class compiles without Delta's jar)
 * delegates to Hudi's, which delegates to Spark's. A table is loaded, altered or
 * dropped through the front of the chain; a staged create or replace goes to the
 * catalog of the provider it names, so each format keeps its own atomic write.
 *
 * <p>Iceberg's tables stay in Iceberg's own catalog (option {@code
 * iceberg-catalog}: its name, a Hadoop catalog, so no second metastore client).
 * The session catalog keeps a pointer for each: an external entry of provider
 * iceberg, no columns, at the table's location. A pointer is loaded as Iceberg's
 * table, and whatever changes the table (create, replace, alter, drop, rename)
 * goes to Iceberg's catalog, keeping the pointer in step. Names of three parts
 * or more (schema.table.snapshots) are Iceberg's metadata tables.
 */
public class LakeSessionCatalog implements CatalogExtension, StagingTableCatalog {
  private static final String ICEBERG = "iceberg";
  private final HoodieCatalog hudi = new HoodieCatalog();
  private CatalogExtension front = hudi;
  private TableCatalog sparks;
  private String icebergName;

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    hudi.initialize(name, options);
    if (options.getBoolean("delta", false)) {
      try {
        front =
            (CatalogExtension)
                Class.forName("org.apache.spark.sql.delta.catalog.DeltaCatalog")
                    .getDeclaredConstructor()
                    .newInstance();
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("Delta Lake's catalog is not on the class path", e);
      }
      front.initialize(name, options);
    }
    icebergName = options.get("iceberg-catalog");
  }

  @Override
  public void setDelegateCatalog(CatalogPlugin sparksCatalog) {
    sparks = (TableCatalog) sparksCatalog;
    hudi.setDelegateCatalog(sparksCatalog);
    if (front != hudi) {
      front.setDelegateCatalog(hudi);
    }
  }

  @Override
  public String name() {
    return front.name();
  }

  @Override
  public String[] defaultNamespace() {
    return front.defaultNamespace();
  }

  @Override
  public Set<TableCatalogCapability> capabilities() {
    return front.capabilities();
  }

  // --- Iceberg's tables --------------------------------------------------------

  /** Iceberg's catalog of this session (looked up each time: it is the session's). */
  private TableCatalog iceberg() {
    return (TableCatalog)
        SparkSession.active().sessionState().catalogManager().catalog(icebergName);
  }

  private static boolean isIceberg(Map<String, String> properties) {
    return ICEBERG.equalsIgnoreCase(properties.get(TableCatalog.PROP_PROVIDER));
  }

  /** Whether the session catalog's entry of this name is a pointer to Iceberg's table. */
  private boolean isPointer(Identifier ident) {
    if (icebergName == null) {
      return false;
    }
    try {
      return isIceberg(sparks.loadTable(ident).properties());
    } catch (NoSuchTableException e) {
      return false;
    }
  }

  /** A name Iceberg's catalog answers: one of its metadata tables (schema.table.snapshots). */
  private boolean isMetadataTable(Identifier ident) {
    return icebergName != null && ident.namespace().length >= 2;
  }

  /** Points the session catalog's entry of this name at Iceberg's table (created or replaced). */
  private void point(Identifier ident, Table table) {
    Map<String, String> properties = new HashMap<>();
    properties.put(TableCatalog.PROP_PROVIDER, ICEBERG);
    properties.put(TableCatalog.PROP_EXTERNAL, "true");
    String location = table.properties().get(TableCatalog.PROP_LOCATION);
    if (location != null) {
      properties.put(TableCatalog.PROP_LOCATION, location);
    }
    if (sparks.tableExists(ident)) {
      if (isPointer(ident)) {
        return;
      }
      // A table of another format replaced by an Iceberg one (a model's
      // file_format changed): the old table goes, its data with it.
      front.purgeTable(ident);
    }
    try {
      sparks.createTable(ident, new Column[0], new Transform[0], properties);
    } catch (TableAlreadyExistsException | NoSuchNamespaceException e) {
      throw new IllegalStateException("Could not record Iceberg's table " + ident, e);
    }
  }

  /** Before another format's table takes this name: Iceberg's table goes, and its pointer. */
  private void dropIcebergAt(Identifier ident) {
    if (isPointer(ident)) {
      iceberg().purgeTable(ident);
      sparks.dropTable(ident);
    }
  }

  // --- staged writes: each to its format's catalog ------------------------------

  private StagingTableCatalog stagingFor(Identifier ident, Map<String, String> properties) {
    if (isIceberg(properties) && icebergName != null) {
      return (StagingTableCatalog) iceberg();
    }
    dropIcebergAt(ident);
    String provider = properties.get(TableCatalog.PROP_PROVIDER);
    return front != hudi && "delta".equalsIgnoreCase(provider) ? (StagingTableCatalog) front : hudi;
  }

  private StagedTable pointed(Identifier ident, Map<String, String> properties, StagedTable staged) {
    return isIceberg(properties) && icebergName != null ? new PointedStagedTable(ident, staged) : staged;
  }

  @Override
  public StagedTable stageCreate(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    StagedTable staged =
        stagingFor(ident, properties).stageCreate(ident, schema, partitions, properties);
    return pointed(ident, properties, staged);
  }

  @Override
  public StagedTable stageReplace(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws NoSuchNamespaceException, NoSuchTableException {
    StagingTableCatalog catalog = stagingFor(ident, properties);
    StagedTable staged =
        catalog == hudi || catalog == front || isPointer(ident)
            ? catalog.stageReplace(ident, schema, partitions, properties)
            // (an Iceberg table replacing another format's: Iceberg has none to replace)
            : catalog.stageCreateOrReplace(ident, schema, partitions, properties);
    return pointed(ident, properties, staged);
  }

  @Override
  public StagedTable stageCreateOrReplace(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws NoSuchNamespaceException {
    StagedTable staged =
        stagingFor(ident, properties).stageCreateOrReplace(ident, schema, partitions, properties);
    return pointed(ident, properties, staged);
  }

  /** Iceberg's staged table, whose commit also points the session catalog at it. */
  private final class PointedStagedTable implements StagedTable, SupportsWrite {
    private final Identifier ident;
    private final StagedTable staged;

    PointedStagedTable(Identifier ident, StagedTable staged) {
      this.ident = ident;
      this.staged = staged;
    }

    @Override
    public void commitStagedChanges() {
      staged.commitStagedChanges();
      try {
        point(ident, iceberg().loadTable(ident));
      } catch (NoSuchTableException e) {
        throw new IllegalStateException("Iceberg's table " + ident + " is missing after its commit", e);
      }
    }

    @Override
    public void abortStagedChanges() {
      staged.abortStagedChanges();
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
      return ((SupportsWrite) staged).newWriteBuilder(info);
    }

    @Override
    public String name() {
      return staged.name();
    }

    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
      return staged.schema();
    }

    @Override
    public Column[] columns() {
      return staged.columns();
    }

    @Override
    public Transform[] partitioning() {
      return staged.partitioning();
    }

    @Override
    public Map<String, String> properties() {
      return staged.properties();
    }

    @Override
    public Set<TableCapability> capabilities() {
      return staged.capabilities();
    }
  }

  // --- tables ----------------------------------------------------------------------

  @Override
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    return front.listTables(namespace);
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    if (isMetadataTable(ident)) {
      return iceberg().loadTable(ident);
    }
    Table table = front.loadTable(ident);
    return icebergName != null && isIceberg(table.properties()) ? iceberg().loadTable(ident) : table;
  }

  @Override
  public Table loadTable(Identifier ident, long timestamp) throws NoSuchTableException {
    return isMetadataTable(ident) || isPointer(ident)
        ? iceberg().loadTable(ident, timestamp)
        : front.loadTable(ident, timestamp);
  }

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    return isMetadataTable(ident) || isPointer(ident)
        ? iceberg().loadTable(ident, version)
        : front.loadTable(ident, version);
  }

  @Override
  public void invalidateTable(Identifier ident) {
    if (icebergName != null) {
      iceberg().invalidateTable(ident);
    }
    front.invalidateTable(ident);
  }

  @Override
  public boolean tableExists(Identifier ident) {
    return isMetadataTable(ident) ? iceberg().tableExists(ident) : front.tableExists(ident);
  }

  @Override
  @SuppressWarnings("deprecation")
  public Table createTable(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    if (isIceberg(properties) && icebergName != null) {
      return createIceberg(ident, iceberg().createTable(ident, schema, partitions, properties));
    }
    return front.createTable(ident, schema, partitions, properties);
  }

  @Override
  public Table createTable(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    if (isIceberg(properties) && icebergName != null) {
      return createIceberg(ident, iceberg().createTable(ident, columns, partitions, properties));
    }
    return front.createTable(ident, columns, partitions, properties);
  }

  private Table createIceberg(Identifier ident, Table created) {
    point(ident, created);
    return created;
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
    return isPointer(ident) ? iceberg().alterTable(ident, changes) : front.alterTable(ident, changes);
  }

  @Override
  public boolean dropTable(Identifier ident) {
    if (isPointer(ident)) {
      boolean dropped = iceberg().dropTable(ident);
      return sparks.dropTable(ident) || dropped;
    }
    return front.dropTable(ident);
  }

  @Override
  public boolean purgeTable(Identifier ident) {
    if (isPointer(ident)) {
      boolean dropped = iceberg().purgeTable(ident);
      return sparks.dropTable(ident) || dropped;
    }
    return front.purgeTable(ident);
  }

  @Override
  public void renameTable(Identifier from, Identifier to)
      throws NoSuchTableException, TableAlreadyExistsException {
    if (!isPointer(from)) {
      front.renameTable(from, to);
      return;
    }
    iceberg().renameTable(from, to);
    sparks.dropTable(from);
    point(to, iceberg().loadTable(to));
  }

  // --- schemas -------------------------------------------------------------------

  @Override
  public String[][] listNamespaces() throws NoSuchNamespaceException {
    return front.listNamespaces();
  }

  @Override
  public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
    return front.listNamespaces(namespace);
  }

  @Override
  public boolean namespaceExists(String[] namespace) {
    return front.namespaceExists(namespace);
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(String[] namespace)
      throws NoSuchNamespaceException {
    return front.loadNamespaceMetadata(namespace);
  }

  @Override
  public void createNamespace(String[] namespace, Map<String, String> metadata)
      throws NamespaceAlreadyExistsException {
    front.createNamespace(namespace, metadata);
  }

  @Override
  public void alterNamespace(String[] namespace, NamespaceChange... changes)
      throws NoSuchNamespaceException {
    front.alterNamespace(namespace, changes);
  }

  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade)
      throws NoSuchNamespaceException, NonEmptyNamespaceException {
    if (cascade && icebergName != null && front.namespaceExists(namespace)) {
      // The schema's Iceberg tables go with it, then its folder in Iceberg's catalog.
      for (Identifier ident : front.listTables(namespace)) {
        if (isPointer(ident)) {
          iceberg().purgeTable(ident);
        }
      }
      try {
        ((SupportsNamespaces) iceberg()).dropNamespace(namespace, false);
      } catch (NoSuchNamespaceException | NonEmptyNamespaceException e) {
        // (a schema that never held an Iceberg table has no folder there)
      }
    }
    return front.dropNamespace(namespace, cascade);
  }

  // --- functions: Iceberg's transforms (bucket, ...) for its tables' writes -------

  private FunctionCatalog icebergFunctions(Identifier ident) {
    String[] ns = ident.namespace();
    boolean system = ns.length == 0 || (ns.length == 1 && "system".equalsIgnoreCase(ns[0]));
    return system && icebergName != null ? (FunctionCatalog) iceberg() : null;
  }

  @Override
  public UnboundFunction loadFunction(Identifier ident) throws NoSuchFunctionException {
    FunctionCatalog functions = icebergFunctions(ident);
    if (functions != null) {
      try {
        return functions.loadFunction(ident);
      } catch (NoSuchFunctionException e) {
        // not one of Iceberg's: the session's own
      }
    }
    return front.loadFunction(ident);
  }

  @Override
  public Identifier[] listFunctions(String[] namespace) throws NoSuchNamespaceException {
    return front.listFunctions(namespace);
  }

  @Override
  public boolean functionExists(Identifier ident) {
    try {
      loadFunction(ident);
      return true;
    } catch (NoSuchFunctionException e) {
      return false;
    }
  }
}
