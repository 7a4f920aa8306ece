package lakehouse.catalog;

import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.CatalogExtension;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.StagingTableCatalog;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableCatalogCapability;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.delta.catalog.DeltaCatalog;
import org.apache.spark.sql.hudi.catalog.HoodieCatalog;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The session catalog of a Spark session that holds Hudi and Delta tables side
 * by side, both under plain schema.table names.
 *
 * Hudi's and Delta's catalogs each expect to be spark_catalog, and each is a
 * catalog extension that Spark hands its built-in catalog to: only one of them
 * can be given it. This one is given it and chains them: Delta's catalog
 * delegates to Hudi's, which delegates to Spark's. A table is loaded, altered
 * or dropped through Delta's (which turns a Delta table into its own and passes
 * any other on as Hudi's catalog gave it: Hudi's tables as Hudi's, the rest as
 * Spark's); a staged create or replace (CREATE OR REPLACE TABLE ... AS SELECT)
 * goes to the catalog of the provider it names, so each format keeps its own
 * atomic write.
 */
public class LakeSessionCatalog implements CatalogExtension, StagingTableCatalog {
  private final HoodieCatalog hudi = new HoodieCatalog();
  private final DeltaCatalog delta = new DeltaCatalog();

  @Override
  public void setDelegateCatalog(CatalogPlugin sparks) {
    hudi.setDelegateCatalog(sparks);
    delta.setDelegateCatalog(hudi);
  }

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    hudi.initialize(name, options);
    delta.initialize(name, options);
  }

  @Override
  public String name() {
    return delta.name();
  }

  @Override
  public String[] defaultNamespace() {
    return delta.defaultNamespace();
  }

  @Override
  public Set<TableCatalogCapability> capabilities() {
    return delta.capabilities();
  }

  /** The catalog whose staged writes a new table of these properties takes. */
  private StagingTableCatalog stagingFor(Map<String, String> properties) {
    String provider = properties.get(TableCatalog.PROP_PROVIDER);
    return "delta".equalsIgnoreCase(provider) ? delta : hudi;
  }

  @Override
  public StagedTable stageCreate(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    return stagingFor(properties).stageCreate(ident, schema, partitions, properties);
  }

  @Override
  public StagedTable stageReplace(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws NoSuchNamespaceException, NoSuchTableException {
    return stagingFor(properties).stageReplace(ident, schema, partitions, properties);
  }

  @Override
  public StagedTable stageCreateOrReplace(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws NoSuchNamespaceException {
    return stagingFor(properties).stageCreateOrReplace(ident, schema, partitions, properties);
  }

  // Everything else goes to Delta's catalog, and through it to Hudi's.

  @Override
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    return delta.listTables(namespace);
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    return delta.loadTable(ident);
  }

  @Override
  public Table loadTable(Identifier ident, long timestamp) throws NoSuchTableException {
    return delta.loadTable(ident, timestamp);
  }

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    return delta.loadTable(ident, version);
  }

  @Override
  public void invalidateTable(Identifier ident) {
    delta.invalidateTable(ident);
  }

  @Override
  public boolean tableExists(Identifier ident) {
    return delta.tableExists(ident);
  }

  @Override
  @SuppressWarnings("deprecation")
  public Table createTable(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    return delta.createTable(ident, schema, partitions, properties);
  }

  @Override
  public Table createTable(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    return delta.createTable(ident, columns, partitions, properties);
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
    return delta.alterTable(ident, changes);
  }

  @Override
  public boolean dropTable(Identifier ident) {
    return delta.dropTable(ident);
  }

  @Override
  public boolean purgeTable(Identifier ident) {
    return delta.purgeTable(ident);
  }

  @Override
  public void renameTable(Identifier from, Identifier to)
      throws NoSuchTableException, TableAlreadyExistsException {
    delta.renameTable(from, to);
  }

  @Override
  public String[][] listNamespaces() throws NoSuchNamespaceException {
    return delta.listNamespaces();
  }

  @Override
  public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
    return delta.listNamespaces(namespace);
  }

  @Override
  public boolean namespaceExists(String[] namespace) {
    return delta.namespaceExists(namespace);
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(String[] namespace)
      throws NoSuchNamespaceException {
    return delta.loadNamespaceMetadata(namespace);
  }

  @Override
  public void createNamespace(String[] namespace, Map<String, String> metadata)
      throws NamespaceAlreadyExistsException {
    delta.createNamespace(namespace, metadata);
  }

  @Override
  public void alterNamespace(String[] namespace, NamespaceChange... changes)
      throws NoSuchNamespaceException {
    delta.alterNamespace(namespace, changes);
  }

  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade)
      throws NoSuchNamespaceException, NonEmptyNamespaceException {
    return delta.dropNamespace(namespace, cascade);
  }

  @Override
  public UnboundFunction loadFunction(Identifier ident) throws NoSuchFunctionException {
    return delta.loadFunction(ident);
  }

  @Override
  public Identifier[] listFunctions(String[] namespace) throws NoSuchNamespaceException {
    return delta.listFunctions(namespace);
  }

  @Override
  public boolean functionExists(Identifier ident) {
    return delta.functionExists(ident);
  }
}
