-- Third-party import (src/dataimport/deliver.ts): a delivery's reference at its provider while the provider prepares
-- it (e.g. a Planet Orders API order id), kept between runs of the delivery unit so a rerun polls the same order;
-- and the product's acquisition time as the provider gives it with the files (the BYOC tile's sensingTime).
ALTER TABLE import_deliveries ADD COLUMN provider_ref TEXT;
ALTER TABLE import_deliveries ADD COLUMN sensing_time TEXT;
