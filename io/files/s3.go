package files

// s3:// paths go through the Apache Beam Go SDK's own S3 filesystem, registered here for
// its side effect. It builds its client with the AWS SDK's default configuration chain
// (config.LoadDefaultConfig), so it is configured the usual AWS way: credentials from
// AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile, or an instance role; the region
// from AWS_REGION; another S3-compatible endpoint (MinIO, Ceph, R2) from
// AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL). The filesystem sets no path-style option:
// an endpoint given as an IP address is addressed path-style by the AWS SDK's endpoint
// rules, a host name virtual-host style (BUCKET.HOST).
//
// S3 has no rename: Rename copies server-side and deletes, like gs://.
import _ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
