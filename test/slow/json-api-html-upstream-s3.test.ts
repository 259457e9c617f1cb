/** The JSON API for an HTML-only upstream with the blobs in a real S3 (RGW): test/helpers/json-api-html-suite.ts. */
import { describeHtmlOnlyJsonApi } from '../helpers/json-api-html-suite.js';
import { startRealS3 } from '../helpers/s3-server.js';

describeHtmlOnlyJsonApi('S3', startRealS3);
