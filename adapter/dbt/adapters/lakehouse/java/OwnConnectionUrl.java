package lakehouse.hive;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.hooks.JDOConnectionURLHook;

/**
 * Points every embedded Hive metastore handler of the JVM at the catalog
 * database of the lake its session is on.
 *
 * Hive keeps a metastore client per thread (Hive's thread-local client, and
 * the handler's thread-local store and settings). When the JVM moves its
 * session from one lake to another (a new SparkContext, whose catalog opens
 * the next lake's Derby database), a thread that reached the first lake's
 * catalog kept using that database, and closing its old client reopened the
 * first lake's database after it was shut down. With
 * hive.hmshandler.force.reload.conf on, Hive asks this hook before every
 * call, and moves the thread's store to the database it names.
 */
public class OwnConnectionUrl implements JDOConnectionURLHook {
  private static final String URL_KEY = "javax.jdo.option.ConnectionURL";

  // The database of the lake the session is on; null: each handler's own.
  private static volatile String current;

  /** Called as a session starts on a lake, before its first catalog call. */
  public static void use(String url) {
    current = url;
  }

  @Override
  public String getJdoConnectionUrl(Configuration conf) {
    String url = current;
    return url != null ? url : conf.get(URL_KEY);
  }

  @Override
  public void notifyBadConnectionUrl(String url) {
    // Nothing to fall back to: the lake has one database.
  }
}
