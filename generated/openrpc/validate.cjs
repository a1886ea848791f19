// Validates an OpenRPC document against the official OpenRPC meta-schema
// (@open-rpc/meta-schema), whose schema objects refer to the JSON Schema
// meta-schema of @json-schema-tools/meta-schema. Prints "valid", or the first
// errors and exits 1.
//
//   node validate.cjs DOCUMENT.json
const { openrpcDocument } = require("@open-rpc/meta-schema");
const { jsonSchema } = require("@json-schema-tools/meta-schema");
const Ajv = require("ajv");
const addFormats = require("ajv-formats");
const fs = require("fs");

const document = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
// The meta-schemas name themselves in `$schema`, a dialect Ajv does not
// know; their content is draft-07, which it does.
const withoutDialect = ({ $schema, ...rest }) => rest;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
// The OpenRPC meta-schema refers to the JSON Schema one with and without a
// trailing slash.
ajv.addSchema(withoutDialect(jsonSchema));
ajv.addSchema({ ...withoutDialect(jsonSchema), $id: "https://meta.json-schema.tools" });
const validate = ajv.compile(withoutDialect(openrpcDocument));
if (validate(document)) {
  console.log("valid");
} else {
  console.log(JSON.stringify(validate.errors.slice(0, 10), null, 1));
  process.exit(1);
}
