package files

// s3:// paths go through the filesystem of package s3fs, registered here for its side
// effect: Beam's own, on a client that logs to neardup's log (see s3fs.NewClient).
import _ "github.com/neardup/neardup/io/s3fs"
