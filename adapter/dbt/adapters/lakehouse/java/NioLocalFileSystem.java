package lakehouse.hadoop;

import java.io.DataOutput;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's checksummed local file system, with permissions set and read by
 * system calls. Without Hadoop's native library (pyspark ships none), the raw
 * local file system runs a child process for each of these: chmod for every
 * file and folder it creates, `ls -ld` for the permission, owner or group of a
 * file status, `readlink` for a link status. About 8 ms each, and a
 * micro-batch makes a couple of thousand (data files, checksums, Hudi's
 * timeline and markers).
 */
public class NioLocalFileSystem extends LocalFileSystem {
  public NioLocalFileSystem() {
    super(new Raw());
  }

  /** The raw local file system with chmod, stat and readlink done through java.nio. */
  public static class Raw extends RawLocalFileSystem {
    // Bit i of a POSIX mode, from others' execute (bit 0) to owner's read (bit 8).
    private static final PosixFilePermission[] BITS = {
      PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
      PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
      PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ,
    };

    @Override
    public void setPermission(Path path, FsPermission permission) throws IOException {
      short mode = permission.toShort();
      if ((mode & ~0777) != 0) {
        // A sticky bit: java.nio cannot set it, chmod can.
        super.setPermission(path, permission);
        return;
      }
      Set<PosixFilePermission> bits = EnumSet.noneOf(PosixFilePermission.class);
      for (int bit = 0; bit < BITS.length; bit++) {
        if ((mode & (1 << bit)) != 0) {
          bits.add(BITS[bit]);
        }
      }
      Files.setPosixFilePermissions(pathToFile(path).toPath(), bits);
    }

    /** What Hadoop's gives (symbolic links followed), with one stat call. */
    @Override
    public FileStatus getFileStatus(Path path) throws IOException {
      File file = pathToFile(path);
      BasicFileAttributes attributes;
      try {
        attributes = Files.readAttributes(file.toPath(), BasicFileAttributes.class);
      } catch (NoSuchFileException e) {
        throw new FileNotFoundException("File " + path + " does not exist");
      }
      Path qualified = new Path(file.getPath()).makeQualified(getUri(), getWorkingDirectory());
      return new Status(attributes, getDefaultBlockSize(path), qualified);
    }

    /** Hadoop's runs readlink for every path; only a link needs its answer. */
    @Override
    public FileStatus getFileLinkStatus(Path path) throws IOException {
      if (Files.isSymbolicLink(pathToFile(path).toPath())) {
        return super.getFileLinkStatus(path);
      }
      return getFileStatus(path);
    }

    @Override
    public FileStatus[] listStatus(Path path) throws IOException {
      // A folder's entries come from getFileStatus above; a file's own status
      // is made by Hadoop's class, whose permission forks: remake it.
      FileStatus[] listed = super.listStatus(path);
      for (int i = 0; i < listed.length; i++) {
        if (!(listed[i] instanceof Status)) {
          listed[i] = getFileStatus(listed[i].getPath());
        }
      }
      return listed;
    }
  }

  /**
   * A local file's status. Permission, owner and group are read on first use,
   * as Hadoop's status does, but by one stat call instead of `ls -ld`.
   */
  static final class Status extends FileStatus {
    Status(BasicFileAttributes attributes, long blockSize, Path path) {
      super(attributes.size(), attributes.isDirectory(), 1, blockSize,
          attributes.lastModifiedTime().toMillis(), attributes.lastAccessTime().toMillis(),
          null, null, null, path);
    }

    private synchronized void load() {
      if (!super.getOwner().isEmpty()) {
        return;
      }
      try {
        Map<String, Object> unix = Files.readAttributes(
            new File(getPath().toUri()).toPath(), "unix:mode,owner,group");
        setPermission(new FsPermission((short) ((Integer) unix.get("mode") & 07777)));
        setOwner(((UserPrincipal) unix.get("owner")).getName());
        setGroup(((GroupPrincipal) unix.get("group")).getName());
      } catch (NoSuchFileException e) {
        // Gone since it was listed: what Hadoop's status says then.
        setPermission(null);
        setOwner(null);
        setGroup(null);
      } catch (IOException e) {
        throw new UncheckedIOException("reading the permissions of " + getPath(), e);
      }
    }

    @Override
    public FsPermission getPermission() {
      load();
      return super.getPermission();
    }

    @Override
    public String getOwner() {
      load();
      return super.getOwner();
    }

    @Override
    public String getGroup() {
      load();
      return super.getGroup();
    }

    @Override
    public void write(DataOutput out) throws IOException {
      load();
      super.write(out);
    }
  }
}
